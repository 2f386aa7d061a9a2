"""Reads `node --print-wasm-code` output and lists the TurboFan-compiled loops that do SIMD
multiplies (the GEMM micro-kernels, as V8 compiled them), with their counts of f32x4 multiplies,
adds and SIMD loads/stores to the stack frame (spills and reloads: 0 in a clean micro-kernel).
Used by spills.sh; the counts do not depend on machine load."""
import re
import sys

funcs, name, comp, code = [], None, None, []
for line in open(sys.argv[1], errors='replace'):
    if line.startswith('name: '):
        if name:
            funcs.append((name, comp, code))
        name, code = line.split()[1], []
    elif line.startswith('compiler:'):
        comp = line.split()[1]
    else:
        m = re.match(r'0x[0-9a-f]+\s+([0-9a-f]+)\s+[0-9a-f]+\s+(.*)', line)
        if m:
            code.append((int(m.group(1), 16), m.group(2)))
if name:
    funcs.append((name, comp, code))
stack = re.compile(r'(xmm\d+,\[r[bs]p|\[r[bs]p[^\]]*\],xmm)')
total = 0
for name, comp, code in funcs:
    if comp != 'TurboFan':
        continue
    for off, ins in code:
        m = re.search(r'j\w+ 0x[0-9a-f]+\s+<\+0x([0-9a-f]+)>', ins)
        if not m or not (0 < off - int(m.group(1), 16) < 1500):
            continue
        body = [x for o, x in code if int(m.group(1), 16) <= o <= off]
        mul = sum('mulps' in x for x in body)
        if mul < 4:
            continue
        spills = sum(bool(stack.search(x)) for x in body)
        total += spills
        print(f'  {name:18} loop +{m.group(1):>5}: {len(body):4} instructions, {mul:3} mulps, '
              f'{sum("addps" in x for x in body):3} addps, {spills:3} SIMD stack accesses')
print(f'  total SIMD stack accesses in multiply loops: {total}')
