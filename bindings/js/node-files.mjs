// A model folder on disk (Node.js): small JSON files are read whole; weight files are opened and
// read on demand with fs.readSync, straight into the destination the loader hands over, so a
// checkpoint is never held whole in memory.
import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import { fail } from './errors.mjs';

export function folderFileSet(folder) {
  const root = resolve(folder);
  let stat;
  try {
    stat = statSync(root);
  } catch (e) {
    fail(`cannot open model folder '${folder}': ${e.code ?? e.message}`, 'io_error');
  }
  if (!stat.isDirectory()) fail(`'${folder}' is not a folder (loadPretrained takes the folder holding config.json)`, 'io_error');
  const fds = [];
  const absent = (e) => e.code === 'ENOENT' || e.code === 'ENOTDIR';
  return {
    label: root,
    async text(name) {
      try {
        return await readFile(join(root, name), 'utf8');
      } catch (e) {
        if (absent(e)) return null;
        return fail(`cannot read ${join(root, name)}: ${e.code ?? e.message}`, 'io_error');
      }
    },
    async binary(name) {
      let fd;
      try {
        fd = openSync(join(root, name), 'r');
      } catch (e) {
        if (absent(e)) return null;
        return fail(`cannot open ${join(root, name)}: ${e.code ?? e.message}`, 'io_error');
      }
      fds.push(fd);
      const { size } = fstatSync(fd);
      return {
        size,
        readInto(offset, dest) {
          for (let done = 0; done < dest.length;) {
            const n = readSync(fd, dest, done, dest.length - done, offset + done);
            if (n === 0) fail(`${name}: unexpected end of file at byte ${offset + done} of ${size}`, 'io_error');
            done += n;
          }
        },
      };
    },
    async exists(name) { return existsSync(join(root, name)); },
    close() {
      for (const fd of fds.splice(0)) closeSync(fd);
    },
  };
}
