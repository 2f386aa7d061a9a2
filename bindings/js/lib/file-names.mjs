// The one rule for every file name a model source is asked for (config.json, the shards an index
// names, a sentence-transformers module's folder, tokenizer files): it must name a file *inside*
// the folder. Names come from files in the folder itself (modules.json, the shard index), which
// may be hostile, so every spelling that could leave the folder is refused before any source
// (folder, base URL, dropped files, objects) looks the name up:
//   '..' anywhere ('..', 'a/../..'), absolute paths ('/etc', '//host', 'C:'), URL schemes
//   ('https:', 'file:'), backslashes (a separator on Windows and for some servers), NUL and other
//   control characters, and all of these percent-encoded once or more ('%2e%2e', '%252e%252e',
//   '%2f', '%5c'), because URL parsers and many servers decode them, some more than once; look-
//   alikes of '.', '/' and '\\' (U+2024, U+FF0E, U+2215, U+FF0F, ...), which NFKC or a code-page
//   conversion turns into them; and a part ending in a dot or a space, which Windows drops.
// Symlinks that point out of a folder are a property of the disk, not of the name: node-files.mjs
// checks where each file really is.
import { fail } from './errors.mjs';
import { describe } from './options.mjs';

const MAX_NAME = 1024;
const MAX_DECODINGS = 4;  // a name still %-encoded after this many decodings is refused
// Look-alikes of '.', '/' and '\\' that NFKC or a code-page "best fit" conversion (a server, a
// Windows API in ANSI mode) turns into them: ONE DOT LEADER, SMALL and FULLWIDTH FULL STOP;
// FRACTION and DIVISION SLASH, FULLWIDTH SOLIDUS; SET MINUS, SMALL and FULLWIDTH REVERSE SOLIDUS.
const LOOK_ALIKE = /[\u2024\uFE52\uFF0E\u2044\u2215\uFF0F\u2216\uFE68\uFF3C]/u;

// The name as written and as %-decoded again and again (a lax server decodes more than once).
function decodedForms(name, refuse) {
  const forms = [name];
  for (let form = name; ;) {
    let next;
    try {
      next = decodeURIComponent(form);
    } catch {
      return refuse('has a malformed %-escape');
    }
    if (next === form) return forms;
    if (forms.length > MAX_DECODINGS) return refuse(`is still %-encoded after ${MAX_DECODINGS} decodings`);
    forms.push(next);
    form = next;
  }
}

// Refuses one form of a name that could leave the folder.
function checkForm(form, refuse) {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(form)) refuse('holds a control character');
  const lookAlike = LOOK_ALIKE.exec(form)?.[0];
  if (lookAlike) refuse(`holds U+${lookAlike.codePointAt(0).toString(16).toUpperCase()}, a look-alike of '.', '/' or '\\'`);
  if (form.includes('\\')) refuse('holds a backslash');
  if (form.includes(':')) refuse('holds a colon (a drive letter or a URL scheme)');
  if (form.startsWith('/')) refuse('is an absolute path');
  const segments = form.split('/');
  if (segments.includes('..')) refuse("goes up with '..'");
  if (segments.some((s) => s !== '.' && /[. ]$/.test(s))) refuse("has a part ending in a dot or a space (Windows drops them: '.. ' is '..')");
}

/**
 * A file name the caller may look up: the normalised relative path ('a/./b' -> 'a/b'), or a
 * SimdformerError naming the name and who named it (namedBy: 'modules.json', ...).
 */
export function insideFolder(name, namedBy = 'loadPretrained') {
  const refuse = (why) => fail(`${namedBy} names the file ${describe(name)}, which ${why}; `
    + 'a model folder may only name files inside itself', 'invalid_argument');
  if (typeof name !== 'string' || name.length === 0) return refuse('is not a file name');
  if (name.length > MAX_NAME) return refuse(`is longer than ${MAX_NAME} characters`);
  for (const form of decodedForms(name, refuse)) checkForm(form, refuse);
  const segments = name.split('/').filter((s) => s !== '.');
  if (segments.length === 0 || segments.includes('')) refuse('has an empty path segment');
  return segments.join('/');
}
