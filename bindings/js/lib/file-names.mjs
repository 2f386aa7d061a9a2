// The one rule for every file name a model source is asked for (config.json, the shards an index
// names, a sentence-transformers module's folder, tokenizer files): it must name a file *inside*
// the folder. Names come from files in the folder itself (modules.json, the shard index), which
// may be hostile, so every spelling that could leave the folder is refused before any source
// (folder, base URL, dropped files, objects) looks the name up:
//   '..' anywhere ('..', 'a/../..'), absolute paths ('/etc', '//host', 'C:'), URL schemes
//   ('https:', 'file:'), backslashes (a separator on Windows and for some servers), NUL and other
//   control characters, and all of these percent-encoded ('%2e%2e', '%2f', '%5c'), because URL
//   parsers and many servers decode them.
// Symlinks that point out of a folder are a property of the disk, not of the name: node-files.mjs
// checks where each file really is.
import { fail } from './errors.mjs';
import { describe } from './options.mjs';

const MAX_NAME = 1024;

/**
 * A file name the caller may look up: the normalised relative path ('a/./b' -> 'a/b'), or a
 * SimdformerError naming the name and who named it (namedBy: 'modules.json', ...).
 */
export function insideFolder(name, namedBy = 'loadPretrained') {
  const refuse = (why) => fail(`${namedBy} names the file ${describe(name)}, which ${why}; `
    + 'a model folder may only name files inside itself', 'invalid_argument');
  if (typeof name !== 'string' || name.length === 0) return refuse('is not a file name');
  if (name.length > MAX_NAME) return refuse(`is longer than ${MAX_NAME} characters`);
  let decoded;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    return refuse('has a malformed %-escape');
  }
  for (const form of name === decoded ? [name] : [name, decoded]) {
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(form)) refuse('holds a control character');
    if (form.includes('\\')) refuse('holds a backslash');
    if (form.includes(':')) refuse('holds a colon (a drive letter or a URL scheme)');
    if (form.startsWith('/')) refuse('is an absolute path');
    if (form.split('/').includes('..')) refuse("goes up with '..'");
  }
  const segments = name.split('/').filter((s) => s !== '.');
  if (segments.length === 0 || segments.includes('')) refuse('has an empty path segment');
  return segments.join('/');
}
