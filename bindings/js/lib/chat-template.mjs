// Chat templates: a model folder's chat_template rendered with @huggingface/jinja (the template
// engine transformers.js uses; loaded on first use, so importing simdformer never loads it), with
// the variables transformers' apply_chat_template gives a template: messages,
// add_generation_prompt, tools, documents, the tokenizer's special tokens (bos_token, eos_token,
// ...), raise_exception and strftime_now (the engine's own), plus any the caller adds.
//
// The template comes from chat_template.jinja when the folder has one (transformers >= 4.50 saves
// it there), else tokenizer_config.json's "chat_template": a string, or a list of named templates
// ({name, template}) of which "default" is used, or "tool_use" when tools are given (as
// transformers chooses).
//
// A template is code from the model folder, run in the caller's thread: a template that raises,
// cannot be parsed, recurses without end, asks range() for more than RANGE_LIMIT numbers, runs
// more than STEP_LIMIT steps (nested loops), makes more than TEXT_LIMIT characters of text or a
// longer string than JavaScript can hold is a SimdformerError, never a hang or a crash. (The engine's own range() has no bound and its globals
// cannot be replaced, so the template runs in an environment with these globals instead:
// templateGlobals, the same names and behaviour but for that bound.)
import { SimdformerError, fail } from './errors.mjs';
import { describe, readOptions } from './options.mjs';
import { readList } from './text-inputs.mjs';

let library = null;
let loadLibrary = () => import('@huggingface/jinja');

/** init({ jinja }): a function returning the @huggingface/jinja module (a promise). */
export function setJinjaLoader(load) {
  loadLibrary = load;
  library = null;
}

function jinjaLibrary() {
  library ??= Promise.resolve().then(() => loadLibrary()).catch((e) => {
    library = null;
    fail(`cannot load the template library @huggingface/jinja (a dependency of simdformer): ${e.message}`, 'unsupported');
  });
  return library;
}

const RANGE_LIMIT = 100_000;  // numbers one range() call may produce
// Steps one rendering may take: one per template node evaluated, plus the length of every list
// or mapping a node yields (so a loop pays for its items even when its body is empty). A real
// conversation of a thousand messages takes about 10^5 (tens per message); nested loops over range() or
// repeated lists would otherwise run for hours.
const STEP_LIMIT = 1_000_000;
// A template reads the messages through the variable `messages`, and evaluating it costs one step
// per message (the list's length, above): a template that reads them at all spends more than
// STEP_LIMIT steps on a list of STEP_LIMIT messages (and one that loops over them spends at least
// twice that). Such a list can never render, so it is refused before it is read or converted for
// the engine (that conversion alone took seconds for a million messages, only to fail at the
// budget). Real conversations are hundreds of messages, tens of steps each.
const MAX_MESSAGES = STEP_LIMIT - 1;
// Characters of text one rendering may make: the lengths of every string a node evaluates to,
// summed (so a string built piece by piece pays for each piece and each partial result). Steps
// alone do not bound memory: 10^5 loop turns that each make a distinct 10^6-character string
// (or keep it in a list) fill gigabytes, and V8 aborts the process when its heap runs out, where
// a too-long string is only a RangeError. A real prompt counts each of its characters a few times
// (the content, the concatenations, the loop's output): 2^27 leaves room for prompts of tens of
// megabytes, far past any model's context.
const TEXT_LIMIT = 2 ** 27;
// The engine converts every value it is handed (Environment.set) item by item before the step
// budget counts anything, and a Proxy can claim 2^32 - 1 items at no cost. So the messages' own
// values, tools, documents and variables are copied first (templateCopy), each list and plain
// object read once: their lists hold at most MAX_ITEMS items in all (no template could read more
// within its budget; real ones are a few per message). A value that contains itself, or is
// nested too deeply, overflows the stack here as it would in the engine, and is refused the same
// way (renderChat's catch: "it recursed too deeply").
const MAX_ITEMS = STEP_LIMIT - 1;
const SPECIAL_TOKENS = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'];

const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
// tokenizer_config.json writes a special token as its text or as an AddedToken {content, ...}.
const tokenText = (t) => (typeof t === 'string' ? t : isPlainObject(t) && typeof t.content === 'string' ? t.content : undefined);

/**
 * The chat templates of a folder: {templates: Map(name -> source), specialTokens}, or null when it
 * has none. jinjaText: chat_template.jinja's text (or null).
 */
export function chatTemplates(tokenizerConfig, jinjaText) {
  const config = isPlainObject(tokenizerConfig) ? tokenizerConfig : {};
  const templates = new Map();
  const given = config.chat_template;
  if (typeof given === 'string') {
    templates.set('default', given);
  } else if (Array.isArray(given)) {
    given.forEach((t, i) => {
      if (!isPlainObject(t) || typeof t.name !== 'string' || typeof t.template !== 'string') {
        fail(`tokenizer_config.json: chat_template[${i}] must be {name, template} strings, got ${describe(t)}`);
      }
      templates.set(t.name, t.template);
    });
  } else if (given !== undefined && given !== null) {
    fail(`tokenizer_config.json: chat_template must be a string or a list of {name, template}, got ${describe(given)}`);
  }
  if (typeof jinjaText === 'string') templates.set('default', jinjaText);
  if (templates.size === 0) return null;
  const specialTokens = {};
  for (const name of SPECIAL_TOKENS) {
    const text = tokenText(config[name]);
    if (text !== undefined) specialTokens[name] = text;
  }
  if (Array.isArray(config.additional_special_tokens)) {
    specialTokens.additional_special_tokens = config.additional_special_tokens.map(tokenText).filter((t) => t !== undefined);
  }
  return { templates, specialTokens };
}

// The messages, checked, as a copy of the array (read once, a hole refused like a wrong item:
// text-inputs.mjs); the template gets the copy.
function checkMessages(messages, where) {
  const empty = () => fail(`${where}: messages must be a non-empty array of {role, content}, got ${describe(messages)}`);
  if (!Array.isArray(messages)) empty();
  const tooMany = (n) => fail(`${where}: ${n} messages are more than any chat template can read within its budget of ${STEP_LIMIT} steps`);
  const list = readList(messages, (m, i) => {
    // Own role and content: the template gets a copy of the message's own keys (templateCopy), so
    // a role inherited from Object.prototype would pass here and be absent there.
    const own = (key) => (isPlainObject(m) && Object.hasOwn(m, key) ? m[key] : undefined);
    if (typeof own('role') !== 'string') fail(`${where}: messages[${i}] must be an object with a string role, got ${describe(m)}`);
    const content = own('content');
    if (!(typeof content === 'string' || Array.isArray(content) || content === null || content === undefined)) {
      fail(`${where}: messages[${i}].content must be a string or a list of parts, got ${describe(content)}`);
    }
  }, MAX_MESSAGES, tooMany);
  return list.length ? list : empty();
}

/**
 * Whether generateText's input is a conversation ([{role, content}, ...]): an array whose first
 * item is an object (no prompt is one). The rest is checked when it is rendered, so a wrong
 * message further on is an error about that message, not a prompt of the wrong type.
 */
export const isConversation = (x) => Array.isArray(x) && x.length > 0 && isPlainObject(x[0]);

function chooseTemplate(chat, { template, tools }, where) {
  if (template !== undefined) {
    if (typeof template !== 'string') fail(`${where}: template must be a template name or source, got ${describe(template)}`);
    // A name of the folder's templates, or the source of one to use instead.
    return chat?.templates.get(template) ?? template;
  }
  if (!chat) fail(`${where}: this model's folder has no chat template (tokenizer_config.json "chat_template" or chat_template.jinja); pass one as options.template`, 'unsupported');
  if (tools !== undefined && chat.templates.has('tool_use')) return chat.templates.get('tool_use');
  const source = chat.templates.get('default');
  if (source === undefined) fail(`${where}: the folder's chat templates are ${[...chat.templates.keys()].join(', ')}, and none is "default": pass options.template`, 'unsupported');
  return source;
}

const tooManyItems = (what, where) =>
  `${where}: ${what} holds more list items than any chat template can read within its budget of ${STEP_LIMIT} steps (${MAX_ITEMS} in all)`;

// A copy of `value` for the template engine, its lists' lengths counted against budget.left (see
// MAX_ITEMS); values other than lists and plain objects (strings, numbers, functions the
// variables may give, class instances) are passed as they are.
function templateCopy(value, what, where, budget) {
  if (value === null || typeof value !== 'object') return value;
  const plain = Array.isArray(value) || [Object.prototype, null].includes(Object.getPrototypeOf(value));
  if (!plain) return value;
  if (!Array.isArray(value)) {
    const out = {};
    for (const key of Object.keys(value)) out[key] = templateCopy(value[key], what, where, budget);
    return out;
  }
  const n = value.length;
  if (n > budget.left) fail(tooManyItems(what, where));
  budget.left -= n;
  const out = [];
  for (let i = 0; i < n; i++) out.push(templateCopy(value[i], what, where, budget));
  return out;
}

// tools: undefined or null (none, as transformers' tools=None: the "tool_use" template is not
// chosen), else a list of JSON schemas (objects), read once. transformers iterates the list and
// raises for an item that is neither a schema nor a Python function (from whose type hints it
// would build one); anything else is not a list of tools either.
function readTools(tools, where) {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) fail(`${where}: tools must be a list of tool schemas (objects), got ${describe(tools)}`);
  return readList(tools, (t, i) => {
    if (!isPlainObject(t)) fail(`${where}: tools[${i}] must be a tool's JSON schema (an object), got ${describe(t)}`);
  }, MAX_ITEMS, () => fail(tooManyItems('tools', where)));
}

function boundedRange(start, stop, step = 1) {
  if (stop === undefined) [start, stop] = [0, start];
  if (![start, stop, step].every(Number.isSafeInteger)) throw new Error('range() takes integers');
  const count = step === 0 ? Infinity : Math.max(0, Math.ceil((stop - start) / step));
  if (count > RANGE_LIMIT) throw new Error(`range() of ${count} numbers exceeds ${RANGE_LIMIT}`);
  if (step === 0) throw new Error('range() step must not be zero');
  const out = [];
  for (let i = 0; i < count; i++) out.push(start + i * step);
  return out;
}

// strftime_now(format): the current local time, the directives templates use (Llama 3.1's
// "%d %b %Y"): %Y %m %d %b %B %H %M %%, as the engine's own.
function strftimeNow(format) {
  const now = new Date(), pad2 = (n) => String(n).padStart(2, '0');
  const month = (style) => new Intl.DateTimeFormat(undefined, { month: style }).format(now);
  return String(format).replace(/%[YmdbBHM%]/g, (t) => ({
    '%Y': String(now.getFullYear()), '%m': pad2(now.getMonth() + 1), '%d': pad2(now.getDate()),
    '%b': month('short'), '%B': month('long'), '%H': pad2(now.getHours()), '%M': pad2(now.getMinutes()), '%%': '%',
  })[t]);
}

const templateGlobals = () => ({
  false: false, true: true, none: null, False: false, True: true, None: null,
  raise_exception: (message) => { throw new Error(message); },
  range: boundedRange,
  strftime_now: strftimeNow,
});

/**
 * messages -> the prompt text, as tokenizer.apply_chat_template(messages, tokenize=False,
 * add_generation_prompt=...) renders it. options: {addGenerationPrompt, tools, documents,
 * template (a name or a template's source), variables (more template variables)}.
 */
export async function renderChat(chat, messages, options = {}, where = 'applyChatTemplate') {
  if (!isPlainObject(options)) fail(`${where}: options must be an object, got ${describe(options)}`);
  // readOptions reads own properties only: a key set on Object.prototype (template, documents,
  // addGenerationPrompt, ...) changes no call. Each is checked below, after the messages (null
  // refused there: `given` keeps it, where options.mjs's value() would read it as absent).
  const given = (fallback) => ({ fallback, read: (v) => v });
  const { addGenerationPrompt, tools: toolsGiven, documents, template, variables } = readOptions(options, {
    addGenerationPrompt: given(false), tools: given(), documents: given(), template: given(), variables: given({}),
  }, where);
  const list = checkMessages(messages, where);
  const tools = readTools(toolsGiven, where);
  if (typeof addGenerationPrompt !== 'boolean') fail(`${where}: addGenerationPrompt must be true or false, got ${describe(addGenerationPrompt)}`);
  if (!isPlainObject(variables)) fail(`${where}: variables must be an object, got ${describe(variables)}`);
  const source = chooseTemplate(chat, { template, tools }, where);
  const { Template, Environment, Interpreter } = await jinjaLibrary();
  let compiled;
  try {
    compiled = new Template(source);
  } catch (e) {
    fail(`${where}: the chat template cannot be parsed: ${e.message}`, 'invalid_argument');
  }
  try {
    const budget = { left: MAX_ITEMS };
    const values = {
      ...templateGlobals(),
      ...(chat?.specialTokens ?? {}),
      // transformers always passes tools and documents (None when not given), so a template's
      // `tools is not none` (Mistral's) is false without tools, not true of an undefined name.
      tools: null,
      documents: null,
      ...templateCopy(variables, 'variables', where, budget),
      messages: list.map((m) => templateCopy(m, 'messages', where, budget)),
      add_generation_prompt: addGenerationPrompt,
      ...(tools === undefined ? {} : { tools: templateCopy(tools, 'tools', where, budget) }),
      ...(documents === undefined ? {} : { documents: templateCopy(documents, 'documents', where, budget) }),
    };
    const env = new Environment();
    for (const [name, v] of Object.entries(values)) env.set(name, v);
    return new (boundedInterpreter(Interpreter))(env).run(compiled.parsed).value;
  } catch (e) {
    if (e instanceof SimdformerError) throw e;
    return fail(`${where}: the chat template failed: ${failure(e)}`, 'invalid_argument');
  }
}

// The engine's Interpreter, counting the steps of every node it evaluates (evaluate() is its one
// dispatch, and every loop gets its items from it).
function boundedInterpreter(Interpreter) {
  return class extends Interpreter {
    steps = 0;
    text = 0;

    spend(n) {
      this.steps += n;
      if (this.steps > STEP_LIMIT) throw new Error(`it ran more than ${STEP_LIMIT} steps (nested loops?)`);
    }

    evaluate(statement, environment) {
      this.spend(1);
      const result = super.evaluate(statement, environment);
      const items = result?.value;
      if (Array.isArray(items)) this.spend(items.length);
      else if (items instanceof Map) this.spend(items.size);
      else if (typeof items === 'string' && (this.text += items.length) > TEXT_LIMIT) {
        throw new Error(`it made more than ${TEXT_LIMIT} characters of text`);
      }
      return result;
    }
  };
}

function failure(e) {
  if (!(e instanceof RangeError)) return e.message;
  if (/call stack/i.test(e.message)) return `it recursed too deeply (${e.message})`;
  if (/string length|array length/i.test(e.message)) return `its output is longer than a JavaScript string or array can hold (${e.message})`;
  return e.message;
}
