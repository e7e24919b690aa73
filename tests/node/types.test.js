'use strict';
// The TypeScript declarations and the other renderings of the widget manifest: tsc checks a
// consumer (no errors), wrong uses (each fails, where and how it should), the keys the running
// API returns against the declared ones, and custom-elements.json against the schema's types.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { loadAttentionLab } = require('./lab.js');
const manifest = require('../../scripts/manifest.js');
const { WIDGETS, COMMON_EVENTS, COMMON_PARTS, CSS_PROPERTIES, attributesOf } = require('../../web/src/kit/manifest.js');

const root = path.resolve(__dirname, '..', '..');
const typesDir = path.join(root, 'tests', 'types');
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const posix = (p) => p.split(path.sep).join('/');

// Declared in types/index.d.ts ahead of the engine change that adds them (issue 9); once the
// running API has one, it is checked like every other name and its entry here can go.
const PENDING = ['createDotProductStats'];

/** { file: [{ line, code, text }] } from `tsc --pretty false` output. */
function tscErrors(output) {
  const byFile = {};
  for (const m of output.matchAll(/^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/gm)) {
    const file = path.basename(m[1]);
    (byFile[file] = byFile[file] || []).push({ line: Number(m[2]), code: m[3], text: m[4] });
  }
  return byFile;
}

/** `{ [K in keyof T]-?: true }` literal holding exactly the runtime keys: tsc reports missing and extra ones. */
function keysCheck(typeName, keys, indexTypes) {
  return `export const ${typeName.replace(/\W/g, '_')}Keys: { [K in keyof ${typeName}]-?: true } = { ${keys.map((k) => `${JSON.stringify(k)}: true`).join(', ')} };\n`;
}

function publicKeys(object) {
  const keys = new Set(Object.keys(object).filter((k) => !k.startsWith('_')));
  for (let proto = Object.getPrototypeOf(object); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const k of Object.getOwnPropertyNames(proto)) if (k !== 'constructor' && !k.startsWith('_')) keys.add(k);
  }
  return [...keys];
}

async function runtimeShapes() {
  const lab = await loadAttentionLab();
  const Q = [[0, 3, 0, 0]];
  const K = [[2, 0, 0, 1], [0, 3, 0, 0]];
  const V = [[1, 0], [0, 1]];
  const I = [[1, 0], [0, 1]];
  const ws = lab.createWorkspace({ m: 1, n: 2, dk: 4, dv: 2 });
  const trainer = lab.createTrainer({ vocab: 8, seqLen: 8, dModel: 8, batch: 2 });
  const trace = lab.traceShapes({ n: 4, dModel: 8, heads: 2 });
  const examples = lab.examples();
  const labKeys = Object.keys(lab);
  const shapes = {
    Lab: [...labKeys, ...PENDING.filter((name) => !labKeys.includes(name))],
    AttentionResult: Object.keys(lab.attention(Q, K, V)),
    MultiHeadResult: Object.keys(lab.multiHeadAttention({ X: I, Wq: I, Wk: I, Wv: I, heads: 1 })),
    DotProductStats: Object.keys(lab.dotProductStats({ dk: 4, samples: 10 })),
    ExplainRowResult: Object.keys(lab.explainRow(Q, K, V, 0)),
    SaturationRow: Object.keys(lab.softmaxSaturation({ dks: [4], trials: 2 })[0]),
    ShapeTrace: Object.keys(trace),
    ShapeStep: Object.keys(trace.steps[0]),
    MemoryUse: Object.keys(lab.memory()),
    HeadScores: Object.keys(lab.headSummary([[[1]]])[0]),
    Examples: Object.keys(examples),
    "Examples['timeFlies']": Object.keys(examples.timeFlies),
    Tensor: publicKeys(lab.tensor(Q)),
    Workspace: publicKeys(ws),
    Trainer: publicKeys(trainer),
    TrainerSettings: Object.keys(trainer.options),
    TrainerStep: Object.keys(trainer.step(1)),
    TrainerEvaluation: Object.keys(trainer.evaluate()),
    HeadScore: Object.keys(trainer.headScores()[0]),
    TrainerMemory: Object.keys(trainer.memory),
    TrainerParameter: Object.keys(trainer.parameters[0]),
    TrainerWeights: Object.keys(trainer.exportWeights()),
    AttentionGradients: Object.keys(lab.attentionBackward(Q, K, V, [[1, 1]])),
  };
  ws.dispose();
  trainer.dispose();
  return { shapes, missingPending: PENDING.filter((name) => !labKeys.includes(name)) };
}

test('a TypeScript consumer type-checks, every wrong use fails where marked, and the declared keys are the running API\'s', async (t) => {
  const elements = path.join(root, 'types', 'elements.d.ts');
  assert.ok(fs.existsSync(elements), 'types/elements.d.ts is built (node scripts/build.js types)');
  assert.equal(fs.readFileSync(elements, 'utf8'), manifest.elementsDts(), 'types/elements.d.ts is current with the manifest (node scripts/build.js types)');

  const { shapes, missingPending } = await runtimeShapes();
  for (const name of missingPending) t.diagnostic(`${name} is declared but not in this engine build yet; its runtime keys are not checked`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'al-types-'));
  try {
    const names = Object.keys(shapes).map((n) => n.replace(/\[.*$/, ''));
    const runtime = `import type { ${[...new Set(names)].join(', ')} } from ${JSON.stringify(posix(path.join(root, 'types', 'index')))};\n`
      + Object.entries(shapes).map(([type, keys]) => keysCheck(type, keys)).join('');
    fs.writeFileSync(path.join(tmp, 'runtime-keys.ts'), runtime);
    const config = JSON.parse(fs.readFileSync(path.join(typesDir, 'tsconfig.json'), 'utf8'));
    config.files = [path.join(typesDir, 'consumer.ts'), path.join(typesDir, 'misuse.ts'), path.join(tmp, 'runtime-keys.ts')].map(posix);
    fs.writeFileSync(path.join(tmp, 'tsconfig.json'), JSON.stringify(config));

    const r = spawnSync(process.execPath, [tsc, '-p', path.join(tmp, 'tsconfig.json'), '--noEmit', '--strict', '--pretty', 'false'], { encoding: 'utf8' });
    assert.equal(r.error, undefined);
    const errors = tscErrors(r.stdout);
    assert.deepEqual(errors['consumer.ts'] || [], [], 'the consumer has no type errors');
    assert.deepEqual(errors['runtime-keys.ts'] || [], [], 'declared result keys equal the running API\'s');

    const expected = fs.readFileSync(path.join(typesDir, 'misuse.ts'), 'utf8').split('\n')
      .map((text, i) => ({ line: i + 1, code: (/\/\/ error (TS\d+)$/.exec(text) || [])[1] }))
      .filter((e) => e.code);
    assert.ok(expected.length >= 15, 'misuse.ts marks its wrong uses');
    const got = (errors['misuse.ts'] || []).map(({ line, code }) => ({ line, code }));
    assert.deepEqual(got, expected, `each wrong use fails with its marked error and nothing else fails:\n${r.stdout}`);
    assert.notEqual(r.status, 0, 'tsc exits with errors (the misuses)');
    const unexpected = Object.keys(errors).filter((f) => !['consumer.ts', 'misuse.ts', 'runtime-keys.ts'].includes(f));
    assert.deepEqual(unexpected, [], `no errors inside the declarations:\n${r.stdout}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('custom-elements.json follows the manifest schema 1.0.0 and lists each element\'s whole declared surface', () => {
  const file = path.join(root, 'dist', 'custom-elements.json');
  assert.ok(fs.existsSync(file), 'dist/custom-elements.json is built (node scripts/build.js types)');
  const cem = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.deepEqual(cem, manifest.customElementsManifest(), 'dist/custom-elements.json is current with the manifest');
  assert.equal(cem.schemaVersion, '1.0.0');
  const decls = cem.modules[0].declarations;
  assert.deepEqual(decls.map((d) => d.tagName), Object.keys(WIDGETS));
  for (const d of decls) {
    const attrs = attributesOf(d.tagName);
    assert.deepEqual(d.attributes.map((a) => [a.name, a.fieldName]), attrs.map((a) => [a.name, a.property]), `${d.tagName} attributes`);
    const fields = d.members.map((m) => m.name);
    const methods = (WIDGETS[d.tagName].methods || []).map((m) => m.name);
    assert.deepEqual(fields, [...attrs.map((a) => a.property), ...(WIDGETS[d.tagName].json ? ['data'] : []), ...methods], `${d.tagName} members`);
    assert.deepEqual(d.members.filter((m) => m.kind === 'method').map((m) => m.name), methods, `${d.tagName} methods`);
    assert.deepEqual(d.events.map((e) => e.name), [...COMMON_EVENTS, ...(WIDGETS[d.tagName].events || [])].map((e) => e.name));
    assert.match(d.events.find((e) => e.name === 'al-change').type.text, /^CustomEvent<\{ state: \{ .+ \} \}>$/);
    assert.deepEqual(d.cssParts.map((p) => p.name), [...COMMON_PARTS, ...WIDGETS[d.tagName].parts].map((p) => p.name));
    assert.deepEqual(d.cssProperties.map((p) => p.name), CSS_PROPERTIES.map((p) => p.name));
  }
  assert.deepEqual(cem.modules[0].exports.map((e) => [e.kind, e.name]), decls.map((d) => ['custom-element-definition', d.tagName]));

  // The schema package's own types; CustomElementDeclaration is spelt out because its 1.0.0
  // typing omits the CustomElement half that the JSON schema includes.
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'al-cem-'));
  try {
    const schema = posix(path.join(root, 'node_modules', 'custom-elements-manifest', 'schema'));
    fs.writeFileSync(path.join(tmp, 'cem.ts'), `import type { Package, JavaScriptModule, ClassDeclaration, CustomElement } from ${JSON.stringify(schema)};\n`
      + 'type Module = Omit<JavaScriptModule, \'declarations\'> & { declarations: Array<ClassDeclaration & CustomElement> };\n'
      + `export const manifest: Omit<Package, 'modules'> & { modules: Module[] } = ${JSON.stringify(cem)};\n`);
    const r = spawnSync(process.execPath, [tsc, '--noEmit', '--strict', '--pretty', 'false', '--types', '', path.join(tmp, 'cem.ts')], { encoding: 'utf8' });
    assert.equal(r.status, 0, `custom-elements.json fits the schema's types:\n${r.stdout}`);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});

test('the manifest\'s state shorthand becomes TypeScript object types, and bad shorthand is an error naming it', () => {
  assert.equal(manifest.objectType('{ batch, n, dModel: number, quiz: boolean }', 'x'), '{ batch: number; n: number; dModel: number; quiz: boolean }');
  assert.equal(manifest.objectType('{ q: string }', 'x'), '{ q: string }');
  assert.throws(() => manifest.objectType('{ a, b }', 'shape-tracer state'), /shape-tracer state ends with a, b and no type/);
  assert.throws(() => manifest.objectType('{ 1x: number }', 'y state'), /y state has a field "1x: number"/);
  assert.equal(manifest.propertyType({ name: 'heads', type: 'enum', values: ['1', '2'] }), '"1" | "2"');
  assert.throws(() => manifest.propertyType({ name: 'w', type: 'colour' }), /attribute w has unknown type "colour"/);
});

test('the element reference\'s tables (docs/elements.md) are the ones the manifest renders', () => {
  const readme = fs.readFileSync(path.join(root, 'docs', 'elements.md'), 'utf8');
  const parts = manifest.readmeBlock(readme);
  assert.ok(parts, `docs/elements.md has the ${manifest.MARKERS.start} ... ${manifest.MARKERS.end} markers`);
  assert.equal(parts.block, manifest.readmeBlockText(), 'docs/elements.md is current: run node scripts/manifest.js --readme');
});

