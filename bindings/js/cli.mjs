#!/usr/bin/env node
// simdformer command line: describe a model, embed text, fill masks, classify, find entities,
// answer questions, zero-shot classify and rerank with Hugging Face folders, encode and decode
// with models in simdformer's nn.Transformer format. Human-readable output by default, --json for
// scripts, --help for every command.
import { parseArgs } from 'node:util';

import { demoCommands } from './cli/demo.mjs';
import { UsageError } from './cli/format.mjs';
import { safetensorsCommands } from './cli/safetensors.mjs';
import { taskCommands } from './cli/tasks.mjs';
import { generateCommand, textCommands } from './cli/text.mjs';
import { init } from './node.mjs';

const COMMON = {
  simd: { type: 'string', help: '--simd auto|on|off    pick the wasm build (default: SIMD128 when the engine has it)' },
  json: { type: 'boolean', help: '--json                machine-readable JSON on stdout' },
  progress: { type: 'boolean', help: '--progress            report loading progress on stderr' },
  help: { type: 'boolean', short: 'h', help: '-h, --help            this help' },
};

const COMMANDS = { ...textCommands, ...taskCommands, ...safetensorsCommands, generate: generateCommand, ...demoCommands };

const overview = () => `simdformer — Transformer models in WebAssembly SIMD

Usage: simdformer <command> [options]        simdformer <command> --help

Commands:
${Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(10)} ${c.summary}`).join('\n')}

Hugging Face folders (config.json, model.safetensors or shards, tokenizer.json) of BERT,
RoBERTa, XLM-RoBERTa and DistilBERT models work with info, embed and fill-mask, and with the
command of their head: classify (and zero-shot for NLI models, rerank for one-label
cross-encoders), ner, qa; GPT-2 folders with info and generate.`;

function commandHelp(name) {
  const c = COMMANDS[name];
  const lines = Object.values({ ...c.options, ...COMMON }).map((o) => `  ${o.help}`);
  return `simdformer ${name} — ${c.summary}\n\nUsage:\n${c.usage.map((u) => `  simdformer ${name} ${u}`).join('\n')}\n\nOptions:\n${lines.join('\n')}${c.notes ? `\n\n${c.notes}` : ''}`;
}

function parse(name, argv) {
  const spec = Object.fromEntries(Object.entries({ ...COMMANDS[name].options, ...COMMON })
    .map(([k, { type, short, multiple }]) => [k, { type, ...(short ? { short } : {}), ...(multiple ? { multiple } : {}) }]));
  const { values, positionals } = parseArgs({ args: argv, options: spec, allowPositionals: true, strict: true });
  if (positionals.length) throw new UsageError(`unexpected argument '${positionals[0]}'`);
  return values;
}

function progressPrinter(enabled) {
  if (!enabled) return undefined;
  return (p) => {
    const done = p.step ?? p.loaded, total = p.total;
    if (total === undefined || done === undefined || p.stage === 'start' || p.stage === 'done') return;
    process.stderr.write(`\r${p.stage}${p.file ? ` ${p.file}` : ''}: ${done}/${total}${done === total ? '\n' : ''}`);
  };
}

async function main(argv) {
  const [name, ...rest] = argv;
  if (name === undefined || name === '-h' || name === '--help') { process.stdout.write(`${overview()}\n`); return name === undefined ? 2 : 0; }
  if (name === 'help') {
    if (rest[0] !== undefined && !Object.hasOwn(COMMANDS, rest[0])) throw new UsageError(`unknown command '${rest[0]}'`);
    process.stdout.write(`${rest[0] ? commandHelp(rest[0]) : overview()}\n`);
    return 0;
  }
  if (!Object.hasOwn(COMMANDS, name)) throw new UsageError(`unknown command '${name}' (${Object.keys(COMMANDS).join(', ')})`);
  const a = parse(name, rest);
  if (a.help) { process.stdout.write(`${commandHelp(name)}\n`); return 0; }
  const simd = { auto: 'auto', on: true, off: false }[a.simd ?? 'auto'];
  if (simd === undefined) throw new UsageError(`--simd must be auto, on or off, not '${a.simd}'`);
  const sf = await init({ simd });
  const out = (text) => process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  const write = (text) => process.stdout.write(text);
  return COMMANDS[name].run(sf, a, { out, write, progress: progressPrinter(a.progress === true) });
}

main(process.argv.slice(2)).then((code) => { process.exitCode = code ?? 0; }, (e) => {
  if (e instanceof UsageError || e?.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' || e?.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE'
      || e?.code === 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL') {
    const name = process.argv[2];
    console.error(`simdformer: ${e.message}\nRun 'simdformer ${Object.hasOwn(COMMANDS, name ?? '') ? `${name} ` : ''}--help' for usage.`);
    process.exitCode = 2;
  } else {
    console.error(`simdformer: ${e?.message ?? e}`);
    process.exitCode = 1;
  }
});
