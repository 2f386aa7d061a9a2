// A model folder on disk (Node.js): small JSON files are read whole; weight files are opened and
// read on demand with fs.readSync, straight into the destination the loader hands over, so a
// checkpoint is never held whole in memory.
//
// Three rules keep a hostile folder from doing harm:
//  - every file is where its name says: inside the folder, also after following symlinks
//    (insideFolder checks the name, whereNamed where the name really leads). A symlink may lead
//    out of the folder only into a Hugging Face hub cache (a folder made by huggingface-cli
//    download --local-dir links its big files to <cache>/models--org--name/blobs/<hash>), or
//    anywhere with loadPretrained(dir, { followSymlinks: true }); names written in the folder's
//    files (modules.json paths, weight_map shards) stay inside the folder either way;
//  - the file read is the file checked: each is opened once, by its checked real path, without
//    following a symlink there (O_NOFOLLOW), and the open descriptor must be the file that was
//    checked (same device and inode as stat saw, and on Linux the path the kernel gives for the
//    descriptor is the checked one), so a link swapped in between check and open is refused;
//  - only regular files are opened (openRegularFile): opening a FIFO blocks until a writer comes,
//    which with openSync stops the whole process and with fs.promises never settles.
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, resolve, sep } from 'node:path';

import { fail } from '../lib/errors.mjs';
import { insideFolder } from '../lib/file-names.mjs';

const absent = (e) => e?.code === 'ENOENT' || e?.code === 'ENOTDIR';
// O_NONBLOCK: a file swapped for a FIFO between the stat and the open still cannot block the
// open (Windows has no FIFOs and no such flag).
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
// O_NOFOLLOW: the open fails (ELOOP) if the last part of the path is a symlink (Windows: none).
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
const MAX_TEXT_BYTES = 256 * 2 ** 20;  // JSON files this large are not configs or tokenizers

function checkRegular(stat, path) {
  if (stat.isDirectory()) fail(`${path} is not a file but a folder`, 'io_error');
  if (!stat.isFile()) fail(`${path} is not a regular file (a FIFO, socket or device); simdformer reads only regular files`, 'io_error');
}

// The path the kernel gives for an open descriptor (Linux's /proc/self/fd), or null where the
// system gives none.
function descriptorPath(fd) {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return null;
  }
}

// Fails unless the open descriptor is the file stat saw at path before the open (and, where the
// system says, still lives at path): else a link or folder was swapped in between.
function checkSameFile(fd, before, opened, path, final, shown) {
  const where = final ? descriptorPath(fd) : null;
  if (before.dev === opened.dev && before.ino === opened.ino && (where === null || where === path)) return;
  fail(`${shown} changed while it was being opened (it now leads to another file${where === null ? '' : `, ${where}`}); `
    + 'simdformer reads only the file it checked', 'io_error');
}

/**
 * The one way this package opens a file on disk: {fd, size} of a regular file, null when it
 * does not exist; an io_error naming the path for a folder, FIFO, socket, device or unreadable
 * file. It is checked with stat *before* the open and with fstat on the open descriptor, which
 * must be the same file (device and inode).
 * shown: the path to name in errors (the name the user knows, when path is its real path).
 * final: path is a real path (no symlink in it): a symlink found there at the open is refused.
 */
export function openRegularFile(path, shown = path, { final = false } = {}) {
  let fd;
  try {
    const before = statSync(path, { bigint: true });
    checkRegular(before, shown);
    fd = openSync(path, OPEN_FLAGS | (final ? NO_FOLLOW : 0));
    const stat = fstatSync(fd, { bigint: true });
    checkRegular(stat, shown);
    checkSameFile(fd, before, stat, path, final, shown);
    return { fd, size: Number(stat.size) };
  } catch (e) {
    if (fd !== undefined) closeSync(fd);
    if (absent(e)) return null;
    if (e?.name === 'SimdformerError') throw e;
    if (final && e?.code === 'ELOOP') {
      return fail(`${shown} changed while it was being opened (it is now a symlink); simdformer reads only the file it checked`, 'io_error');
    }
    return fail(`cannot open ${shown}: ${e?.code ?? e?.message}`, 'io_error');
  }
}

/** Reads length bytes at offset of an open file into dest (all of them, or an io_error). */
function readFully(fd, dest, offset, path, size) {
  for (let done = 0; done < dest.length;) {
    let n;
    try {
      n = readSync(fd, dest, done, dest.length - done, offset + done);
    } catch (e) {
      fail(`cannot read ${path}: ${e?.code ?? e?.message}`, 'io_error');
    }
    if (n === 0) fail(`${path}: unexpected end of file at byte ${offset + done} of ${size}`, 'io_error');
    done += n;
  }
}

/** A regular file's text (UTF-8), null when it does not exist (options: as openRegularFile's). */
export function readRegularText(path, shown = path, options = {}) {
  const file = openRegularFile(path, shown, options);
  if (!file) return null;
  try {
    if (file.size > MAX_TEXT_BYTES) fail(`${shown} has ${file.size} bytes, more than the ${MAX_TEXT_BYTES} a JSON or text file may have`, 'io_error');
    const bytes = Buffer.alloc(file.size);
    readFully(file.fd, bytes, 0, shown, file.size);
    return bytes.toString('utf8');
  } finally {
    closeSync(file.fd);
  }
}

// Where a folder's files may really be: the folder itself, and for a snapshot of the Hugging
// Face hub cache (<cache>/models--org--name/snapshots/<revision>/, whose files are symlinks to
// ../../blobs/<hash>) that repository's blobs folder, as huggingface_hub lays it out.
function allowedRoots(realRoot) {
  const repo = dirname(dirname(realRoot));
  const isSnapshot = basename(dirname(realRoot)) === 'snapshots' && REPO_FOLDER.test(basename(repo));
  return isSnapshot ? [realRoot, join(repo, 'blobs')] : [realRoot];
}
const REPO_FOLDER = /^(models|datasets|spaces)--/;

// The Hugging Face hub caches of this machine, by real path, where huggingface_hub keeps what it
// downloads: $HF_HUB_CACHE (and its older name $HUGGINGFACE_HUB_CACHE), $HF_HOME/hub,
// $XDG_CACHE_HOME/huggingface/hub, ~/.cache/huggingface/hub. Read at each load (a program may
// set them); a cache that does not exist is none.
function hubCaches() {
  const env = process.env;
  const named = [env.HF_HUB_CACHE, env.HUGGINGFACE_HUB_CACHE, env.HF_HOME && join(env.HF_HOME, 'hub'),
    env.XDG_CACHE_HOME && join(env.XDG_CACHE_HOME, 'huggingface', 'hub'), join(homedir(), '.cache', 'huggingface', 'hub')];
  const caches = new Set();
  for (const path of named) {
    if (!path) continue;
    try {
      caches.add(realpathSync(resolve(path)));
    } catch {
      // no such cache
    }
  }
  return [...caches];
}

// Is real a repository's downloaded file (or snapshot folder) in one of the caches? Not anything
// else kept there: a folder's link must lead to what huggingface_hub downloaded.
function inHubCache(real, caches) {
  return caches.some((cache) => {
    if (!real.startsWith(cache + sep)) return false;
    const [repo, kind, ...rest] = real.slice(cache.length + 1).split(sep);
    return REPO_FOLDER.test(repo) && (kind === 'blobs' || kind === 'snapshots') && rest.length > 0;
  });
}

// May a folder's file really be at real? followSymlinks: anywhere; else inside the folder (see
// allowedRoots) or a Hugging Face cache.
function linkPolicy(realRoot, followSymlinks) {
  if (followSymlinks) return () => true;
  const roots = allowedRoots(realRoot);
  const caches = hubCaches();
  return (real) => roots.some((r) => real === r || real.startsWith(r + sep)) || inHubCache(real, caches);
}

// {path, real} of the file a name (checked by insideFolder) stands for in the folder root, null
// when it does not exist. An absent file's nearest existing folder is checked too: a symlinked
// folder out must not even be probed.
function whereNamed(root, allowed, name, namedBy) {
  const path = join(root, insideFolder(name, namedBy));
  for (let at = path; ; at = dirname(at)) {
    let real;
    try {
      real = realpathSync(at);
    } catch (e) {
      if (absent(e) && at !== root) continue;
      return fail(`cannot open ${path}: ${e?.code ?? e?.message}`, 'io_error');
    }
    if (!allowed(real)) {
      fail(`${at} leads to ${real}, outside the model folder ${root} (a symlink out of the folder, and not into a `
        + `Hugging Face cache)${namedBy ? `; named by ${namedBy}` : ''}. If you trust this folder, `
        + 'loadPretrained(dir, { followSymlinks: true }) follows its links');
    }
    return at === path ? { path, real } : null;
  }
}

/** A model folder as a file set. followSymlinks: follow links out of it to anywhere. */
export function folderFileSet(folder, { followSymlinks = false } = {}) {
  const root = resolve(folder);
  let realRoot;
  try {
    if (!statSync(root).isDirectory()) fail(`'${folder}' is not a folder (loadPretrained takes the folder holding config.json)`, 'io_error');
    realRoot = realpathSync(root);
  } catch (e) {
    if (e?.name === 'SimdformerError') throw e;
    fail(`cannot open model folder '${folder}': ${e?.code ?? e?.message}`, 'io_error');
  }
  const allowed = linkPolicy(realRoot, followSymlinks);
  const realFile = (name, namedBy) => whereNamed(root, allowed, name, namedBy);
  const fds = [];
  return {
    label: root,
    async text(name, namedBy) {
      const f = realFile(name, namedBy);
      return f && readRegularText(f.real, f.path, { final: true });
    },
    async binary(name, namedBy) {
      const f = realFile(name, namedBy);
      const file = f && openRegularFile(f.real, f.path, { final: true });
      if (!file) return null;
      fds.push(file.fd);
      return { size: file.size, readInto: (offset, dest) => readFully(file.fd, dest, offset, f.path, file.size) };
    },
    async exists(name, namedBy) { return realFile(name, namedBy) !== null; },
    close() {
      for (const fd of fds.splice(0)) closeSync(fd);
    },
  };
}
