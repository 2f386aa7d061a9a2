// Puts the functions of a linked wasm module in the order of their names, for gzip (issue 29's
// footprint room): wasm-ld lays out LTO's output in an order of its own, which scatters related
// functions (one class's members, one template's instantiations, nlohmann's and libc++'s) over
// the 330 KB code section. Side by side they share more of deflate's 32 KB window: 2.6 % less
// gzip for the same code (-3.7 to -4.0 KB per build, 2026-12-06). Nothing else changes: every
// function body stays byte for byte the same except the function indices of its calls, and the
// table keeps its slots (function pointers are slots, not indices).
//
//   node cmake/sort-wasm-functions.mjs <in.wasm> <out.wasm> [--keep-names]
//
// The input must have a name section (the link's --profiling-funcs, kept through wasm-opt by -g):
// the names are the sort key. The output drops it unless --keep-names (a profiling build).
// Every instruction is decoded: an opcode this file does not know stops the build rather than
// leave a call index unmapped. Imported functions keep their indices (they come first).
import { readFileSync, writeFileSync } from 'node:fs';

const [input, output, ...flags] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: node sort-wasm-functions.mjs <in.wasm> <out.wasm> [--keep-names]');
  process.exit(2);
}
const keepNames = flags.includes('--keep-names');
const bytes = readFileSync(input);

class Reader {
  constructor(buf, pos = 0, end = buf.length) { Object.assign(this, { buf, pos, end }); }
  byte() {
    if (this.pos >= this.end) throw new Error(`unexpected end at byte ${this.pos}`);
    return this.buf[this.pos++];
  }
  u32() {
    let result = 0, shift = 0, b;
    do {
      b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return result;
  }
  skipLeb() { while (this.byte() & 0x80); }
  skip(n) { this.pos += n; if (this.pos > this.end) throw new Error('unexpected end'); }
  name() { const n = this.u32(); const s = this.buf.toString('utf8', this.pos, this.pos + n); this.skip(n); return s; }
}
const uleb = (v) => {
  const out = [];
  do {
    let b = v % 128;
    v = Math.floor(v / 128);
    if (v) b |= 0x80;
    out.push(b);
  } while (v);
  return Buffer.from(out);
};
const section = (id, body) => Buffer.concat([Buffer.from([id]), uleb(body.length), body]);

// ---- the sections --------------------------------------------------------------------------
if (bytes.readUInt32LE(0) !== 0x6d736100 || bytes.readUInt32LE(4) !== 1) throw new Error(`${input}: not a wasm module`);
const sections = [];
for (const r = new Reader(bytes, 8); r.pos < r.end;) {
  const id = r.byte(), size = r.u32();
  sections.push({ id, start: r.pos, end: r.pos + size });
  r.skip(size);
}
const sectionOf = (id) => sections.find((s) => s.id === id);

let importedFuncs = 0;
if (sectionOf(2)) {
  const r = new Reader(bytes, sectionOf(2).start, sectionOf(2).end);
  for (let n = r.u32(); n > 0; --n) {
    r.name();
    r.name();
    const kind = r.byte();
    if (kind === 0) { r.u32(); ++importedFuncs; }
    else if (kind === 1) { r.byte(); const f = r.u32(); r.u32(); if (f & 1) r.u32(); }  // table: reftype, limits
    else if (kind === 2) { const f = r.u32(); r.u32(); if (f & 1) r.u32(); }             // memory: limits
    else if (kind === 3) { r.byte(); r.byte(); }
    else if (kind === 4) { r.byte(); r.u32(); }
    else throw new Error(`import kind ${kind}`);
  }
}
const funcTypes = [];
{
  const s = sectionOf(3);
  const r = new Reader(bytes, s.start, s.end);
  for (let n = r.u32(); n > 0; --n) funcTypes.push(r.u32());
}
const bodies = [];
{
  const s = sectionOf(10);
  const r = new Reader(bytes, s.start, s.end);
  for (let n = r.u32(); n > 0; --n) {
    const size = r.u32();
    bodies.push({ start: r.pos, end: r.pos + size });
    r.skip(size);
  }
}
if (bodies.length !== funcTypes.length) throw new Error('function and code sections disagree');

const names = new Map();  // function index -> name
let nameSection = null;
for (const s of sections.filter((x) => x.id === 0)) {
  const r = new Reader(bytes, s.start, s.end);
  if (r.name() !== 'name') continue;
  nameSection = s;
  while (r.pos < r.end) {
    const sub = r.byte(), size = r.u32(), subEnd = r.pos + size;
    if (sub === 1) for (let n = r.u32(); n > 0; --n) { const idx = r.u32(); names.set(idx, r.name()); }
    r.pos = subEnd;
  }
}
if (!nameSection) throw new Error(`${input} has no name section: link with --profiling-funcs, keep it with wasm-opt -g`);

let mapFunc = null;  // old function index -> new (below)

// ---- rewriting instruction sequences -----------------------------------------------------------
// Copies the instructions from r.pos until the `end` that closes depth 0 (a function body or a
// constant expression), with every function index mapped. Returns the pieces to concatenate.
const VALTYPES = new Set([0x40, 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f]);
function rewriteExpr(r, pieces) {
  let copied = r.pos, depth = 0;
  const remap = (at) => {  // the u32 at r.pos is a function index
    pieces.push(r.buf.subarray(copied, at));
    pieces.push(uleb(mapFunc(r.u32())));
    copied = r.pos;
  };
  const blockType = () => { if (VALTYPES.has(r.buf[r.pos])) r.byte(); else r.skipLeb(); };
  const memarg = () => { r.u32(); r.u32(); };
  for (;;) {
    const op = r.byte();
    if (op === 0x02 || op === 0x03 || op === 0x04 || op === 0x06) { blockType(); ++depth; }      // block loop if try
    else if (op === 0x0b) { if (depth-- === 0) break; }                                            // end
    else if (op === 0x00 || op === 0x01 || op === 0x05 || op === 0x0f || op === 0x19 || op === 0x1a || op === 0x1b) {}
    else if (op === 0x18) { r.u32(); --depth; }                                                   // delegate: ends its try
    else if (op === 0x07 || op === 0x08 || op === 0x09 || op === 0x0c || op === 0x0d) r.u32();    // catch throw rethrow br br_if
    else if (op === 0x0e) { for (let n = r.u32(); n >= 0; --n) r.u32(); }                         // br_table: n labels + default
    else if (op === 0x10 || op === 0x12) remap(r.pos);                                             // call return_call
    else if (op === 0x11 || op === 0x13) { r.u32(); r.u32(); }                                     // call_indirect: type, table
    else if (op === 0x1c) { for (let n = r.u32(); n > 0; --n) r.byte(); }                          // select t*
    else if (op >= 0x20 && op <= 0x26) r.u32();                                                    // locals, globals, table.get/set
    else if (op >= 0x28 && op <= 0x3e) memarg();                                                   // loads and stores
    else if (op === 0x3f || op === 0x40) r.byte();                                                 // memory.size / grow
    else if (op === 0x41 || op === 0x42) r.skipLeb();                                              // i32 / i64 const
    else if (op === 0x43) r.skip(4);
    else if (op === 0x44) r.skip(8);
    else if (op >= 0x45 && op <= 0xc4) {}                                                          // numeric, sign extension
    else if (op === 0xd0) r.byte();                                                                // ref.null t
    else if (op === 0xd1) {}                                                                       // ref.is_null
    else if (op === 0xd2) remap(r.pos);                                                            // ref.func
    else if (op === 0xfc) {
      const sub = r.u32();
      if (sub <= 7) {}                                                                             // trunc_sat
      else if (sub === 8) { r.u32(); r.byte(); }                                                   // memory.init
      else if (sub === 9 || sub === 13) r.u32();                                                   // data.drop elem.drop
      else if (sub === 10) { r.byte(); r.byte(); }                                                 // memory.copy
      else if (sub === 11) r.byte();                                                               // memory.fill
      else if (sub === 12 || sub === 14) { r.u32(); r.u32(); }                                     // table.init table.copy
      else if (sub >= 15 && sub <= 17) r.u32();                                                    // table.grow size fill
      else throw new Error(`unknown opcode 0xfc ${sub}`);
    } else if (op === 0xfd) {
      const sub = r.u32();
      if (sub <= 11 || sub === 0x5c || sub === 0x5d) memarg();                                     // v128 loads, store
      else if (sub === 12 || sub === 13) r.skip(16);                                               // v128.const, shuffle
      else if (sub >= 21 && sub <= 34) r.byte();                                                   // lanes
      else if (sub >= 0x54 && sub <= 0x5b) { memarg(); r.byte(); }                                 // load/store lane
      else if (sub <= 0x113) {}                                                                    // the rest (and relaxed SIMD)
      else throw new Error(`unknown opcode 0xfd ${sub}`);
    } else if (op === 0xfe) {
      const sub = r.u32();
      if (sub === 0x03) r.byte();                                                                  // atomic.fence
      else if (sub <= 0x02 || (sub >= 0x10 && sub <= 0x4e)) memarg();                              // notify, wait, atomic memory ops
      else throw new Error(`unknown opcode 0xfe ${sub}`);
    } else throw new Error(`unknown opcode 0x${op.toString(16)} at byte ${r.pos - 1}`);
  }
  pieces.push(r.buf.subarray(copied, r.pos));
}
const rewriteRange = (start, end, fn) => {
  const r = new Reader(bytes, start, end);
  const pieces = [];
  fn(r, pieces);
  if (r.pos !== end) throw new Error('section not fully read');
  return Buffer.concat(pieces);
};
const copyUntil = (r, pieces, from) => pieces.push(r.buf.subarray(from, r.pos));
const rewriteBody = (body) => rewriteRange(body.start, body.end, (r, p) => {
  const from = r.pos;
  for (let n = r.u32(); n > 0; --n) { r.u32(); r.byte(); }  // locals
  copyUntil(r, p, from);
  rewriteExpr(r, p);
});

// ---- the new order and the index map ---------------------------------------------------------
// Calls name their callee by index, a LEB128: 1 byte below 128. The functions called most often
// (static count) keep those indices, so no call grows; every other function follows in the order
// of its name. The key is the demangled name from its qualified part on: a return type in front
// ("void std::__2::__sort<...>", "int simdformer::entry::guarded<...>") would separate a
// template's instantiations from its class's other members.
const callCount = new Map();
mapFunc = (idx) => { callCount.set(idx, (callCount.get(idx) ?? 0) + 1); return idx; };
for (const b of bodies) rewriteBody(b);
function keyOf(i) {
  const name = (names.get(importedFuncs + i) ?? '').replaceAll('(anonymous namespace)', '{anon}');
  let depth = 0, lastSpace = -1;
  // The return type ends at the last space outside <> before the parameters' '('.
  for (let k = 0; k < name.length; ++k) {
    const c = name[k];
    if (c === '<') ++depth;
    else if (c === '>') --depth;
    else if (c === '(' && depth === 0) break;
    else if (c === ' ' && depth === 0) lastSpace = k;
  }
  return name.slice(lastSpace + 1);
}
const byName = (a, b) => { const ka = keyOf(a), kb = keyOf(b); return ka < kb ? -1 : ka > kb ? 1 : a - b; };
const all = bodies.map((_, i) => i);
const calls = (i) => callCount.get(importedFuncs + i) ?? 0;
const often = new Set(all.slice().sort((a, b) => calls(b) - calls(a) || a - b).slice(0, Math.max(0, 128 - importedFuncs)));
const defined = [...often].sort(byName).concat(all.filter((i) => !often.has(i)).sort(byName));
const newIndex = new Map();
for (let i = 0; i < importedFuncs; ++i) newIndex.set(i, i);
defined.forEach((old, pos) => newIndex.set(importedFuncs + old, importedFuncs + pos));
mapFunc = (idx) => {
  const to = newIndex.get(idx);
  if (to === undefined) throw new Error(`function index ${idx} out of range`);
  return to;
};

// ---- writing the module --------------------------------------------------------------------
const out = [bytes.subarray(0, 8)];
for (const s of sections) {
  const raw = bytes.subarray(s.start, s.end);
  if (s.id === 0) {
    if (s === nameSection && keepNames) out.push(section(0, rewriteNames(s)));
    else if (s !== nameSection) out.push(section(0, raw));
    continue;
  }
  if (s.id === 3) {
    out.push(section(3, Buffer.concat([uleb(defined.length), ...defined.map((i) => uleb(funcTypes[i]))])));
  } else if (s.id === 10) {
    const pieces = [uleb(defined.length)];
    for (const i of defined) {
      const body = rewriteBody(bodies[i]);
      pieces.push(uleb(body.length), body);
    }
    out.push(section(10, Buffer.concat(pieces)));
  } else if (s.id === 6) {  // globals: type, mutability, init expression
    out.push(section(6, rewriteRange(s.start, s.end, (r, p) => {
      let from = r.pos;
      for (let n = r.u32(); n > 0; --n) { r.byte(); r.byte(); copyUntil(r, p, from); rewriteExpr(r, p); from = r.pos; }
      copyUntil(r, p, from);
    })));
  } else if (s.id === 7) {  // exports
    out.push(section(7, rewriteRange(s.start, s.end, (r, p) => {
      let from = r.pos;
      for (let n = r.u32(); n > 0; --n) {
        r.name();
        if (r.byte() === 0) { copyUntil(r, p, from); p.push(uleb(mapFunc(r.u32()))); from = r.pos; } else r.u32();
      }
      copyUntil(r, p, from);
    })));
  } else if (s.id === 8) {  // start
    out.push(section(8, uleb(mapFunc(new Reader(bytes, s.start, s.end).u32()))));
  } else if (s.id === 9) {  // elements
    out.push(section(9, rewriteRange(s.start, s.end, (r, p) => {
      let from = r.pos;
      const funcIndices = () => {
        const n = r.u32();
        copyUntil(r, p, from);
        for (let k = 0; k < n; ++k) p.push(uleb(mapFunc(r.u32())));
        from = r.pos;
      };
      const exprs = () => {
        const n = r.u32();
        copyUntil(r, p, from);
        for (let k = 0; k < n; ++k) rewriteExpr(r, p);
        from = r.pos;
      };
      const offset = () => { copyUntil(r, p, from); rewriteExpr(r, p); from = r.pos; };
      for (let n = r.u32(); n > 0; --n) {
        const flags = r.u32();
        if (flags === 0) { offset(); funcIndices(); }
        else if (flags === 1 || flags === 3) { r.byte(); funcIndices(); }
        else if (flags === 2) { r.u32(); offset(); r.byte(); funcIndices(); }
        else if (flags === 4) { offset(); exprs(); }
        else if (flags === 5 || flags === 7) { r.byte(); exprs(); }
        else if (flags === 6) { r.u32(); offset(); r.byte(); exprs(); }
        else throw new Error(`element segment flags ${flags}`);
      }
      copyUntil(r, p, from);
    })));
  } else out.push(section(s.id, raw));
}

// The name section with its function indices renumbered: function names (subsection 1) and local
// names (2), each in index order as they must be; other subsections are copied.
function rewriteNames(s) {
  const r = new Reader(bytes, s.start, s.end);
  const pieces = [uleb(4), Buffer.from('name')];
  r.name();
  while (r.pos < r.end) {
    const sub = r.byte(), size = r.u32(), subEnd = r.pos + size;
    let body = bytes.subarray(r.pos, subEnd);
    if (sub === 1 || sub === 2) {
      const entries = [];
      for (let n = r.u32(); n > 0; --n) {
        const idx = r.u32(), from = r.pos;
        if (sub === 1) r.name();
        else for (let m = r.u32(); m > 0; --m) { r.u32(); r.name(); }
        entries.push([mapFunc(idx), bytes.subarray(from, r.pos)]);
      }
      entries.sort((a, b) => a[0] - b[0]);
      body = Buffer.concat([uleb(entries.length), ...entries.flatMap(([i, rest]) => [uleb(i), rest])]);
    }
    pieces.push(Buffer.from([sub]), uleb(body.length), body);
    r.pos = subEnd;
  }
  return Buffer.concat(pieces);
}

writeFileSync(output, Buffer.concat(out));
