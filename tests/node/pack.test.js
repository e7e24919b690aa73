'use strict';
// What `npm pack` ships, and that the tarball works when a course author installs it: the
// file list (must have / must not have), then an install into an empty project, offline, that
// requires and imports the package by name, computes one attention and type-checks against it.
const test = require('node:test');
const assert = require('node:assert/strict');
const { spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { entryFiles, BUILT_RUNTIME_FILES } = require('../../scripts/prepack.js');
const { attentionHead, maxDiff } = require('./reference.js');

const root = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } });
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed:\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

test('npm pack ships the entry points, the engine, the script, types and licence, and nothing private or stray', () => {
  assert.notEqual(pkg.private, true, 'package.json is not private, so npm pack means something');
  assert.equal(pkg.license, 'MIT');
  const license = fs.readFileSync(path.join(root, 'LICENSE'), 'utf8');
  assert.match(license, /^MIT License/);
  assert.match(license, /Copyright \(c\) \d{4} attention-lab authors/);

  const [packed] = JSON.parse(run(npm, ['pack', '--dry-run', '--json'], root));
  const files = packed.files.map((f) => f.path).sort();
  const mustHave = ['LICENSE', 'README.md', 'package.json', 'web/src/api/lab.js', 'types/index.d.ts', 'types/elements.d.ts',
    'dist/attention-lab.js', 'dist/attention-lab.mjs', 'dist/attention-lab-elements.mjs', 'dist/custom-elements.json', 'dist/attention-lab-model.js', 'dist/attention-lab-model.mjs', 'dist/attention-lab-reserve.css', 'types/model.d.ts', 'python/attention_lab.py', ...entryFiles(pkg), ...BUILT_RUNTIME_FILES];
  for (const f of mustHave) assert.ok(files.includes(f), `the package has ${f}`);
  const stray = /^(tests|cpp|scripts|node_modules|test-results|examples|\.ci|\.git)\/|^build\/|^web\/src\/(kit|elements|ui)\/|^web\/site\/|^dist\/.*\.(html|css)$|^CMakeLists\.txt$|\.log$|^package-lock\.json$|^web\/src\/browser\.js$/;
  // The node entry's code cache for the node that built it (scripts/node-bundle.js).
  const codeCache = path.relative(root, require('../../scripts/node-bundle.js').codeCacheFile).split(path.sep).join('/');
  assert.ok(files.includes(codeCache), `the package has ${codeCache}`);
  // The stylesheet that holds the widgets' space until a deferred kit has run is for authors' pages.
  const shipped = new Set([...BUILT_RUNTIME_FILES, codeCache, 'dist/attention-lab-reserve.css']);
  assert.deepEqual(files.filter((f) => stray.test(f) && !shipped.has(f)), [], 'no tests, sources of other layers, build intermediates or site pages');
  // 3.0 MB unpacked with the positions, ablation and composition added to the script and the
  // wasm: the shipped model is most of the rest, twice (a classic script and an ES module, 463 KB each).
  assert.ok(packed.unpackedSize < 3.3e6, `unpacked size ${packed.unpackedSize} bytes stays small`);
});

test('the packed tarball installs offline into an empty project, where require and import compute attention and its types check', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'al-pack-'));
  try {
    const [packed] = JSON.parse(run(npm, ['pack', '--json', '--pack-destination', tmp], root));
    const tarball = path.join(tmp, packed.filename);
    const project = path.join(tmp, 'course');
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'course', version: '1.0.0', private: true }));
    run(npm, ['install', '--offline', '--no-audit', '--no-fund', tarball], project);
    const installed = path.join(project, 'node_modules', 'attention-lab');
    assert.ok(fs.existsSync(path.join(installed, 'LICENSE')));

    const Q = [[0, 3, 0, 0], [1, 0, 2, 0]];
    const K = [[2, 0, 0, 1], [0, 3, 0, 0], [1, 1, 1, 1]];
    const V = [[1, 0], [0, 1], [2, 2]];
    const script = `const { loadAttentionLab } = require('attention-lab');
      loadAttentionLab().then((lab) => {
        const r = lab.attention(${JSON.stringify(Q)}, ${JSON.stringify(K)}, ${JSON.stringify(V)}, { causal: true });
        console.log(JSON.stringify({ weights: Array.from(r.weights.data), output: Array.from(r.output.data),
          from: require.resolve('attention-lab'), cem: require.resolve('attention-lab/custom-elements.json'),
          guesses: lab.loadModel().predict('the act of').next.length }));
      });`;
    const got = JSON.parse(run(process.execPath, ['-e', script], project));
    assert.ok(got.from.startsWith(installed), `required from the installed package (${got.from})`);
    assert.equal(got.cem, path.join(installed, 'dist', 'custom-elements.json'));
    assert.equal(got.guesses, 5, 'the shipped model loads from the installed package');
    // causal with m = 2, n = 3: query i sees keys j <= i + 1.
    const ref = attentionHead(Q, K, V, 1 / Math.sqrt(4), (i, j) => j <= i + 1);
    assert.ok(maxDiff(Float32Array.from(got.weights), ref.weights) < 1e-6, 'weights match the float64 reference');
    assert.ok(maxDiff(Float32Array.from(got.output), ref.output) < 1e-6, 'output matches the float64 reference');

    // The built script without a toolchain, as the README says: out of the tarball with tar,
    // or from the installed package, byte for byte the build's.
    const built = fs.readFileSync(path.join(root, 'dist', 'attention-lab.js'));
    run('tar', ['-xzf', tarball, '-C', tmp, 'package/dist/attention-lab.js'], tmp);
    assert.ok(fs.readFileSync(path.join(tmp, 'package', 'dist', 'attention-lab.js')).equals(built), 'tar gives the built script');
    assert.ok(fs.readFileSync(path.join(installed, 'dist', 'attention-lab.js')).equals(built), 'the installed package has the built script');

    // A bundler resolves the elements module by name for the browser, finds no node built-in
    // (esbuild fails on one), and keeps one engine when the page imports the API as well.
    fs.writeFileSync(path.join(project, 'page.mjs'), "import { loadAttentionLab } from 'attention-lab';\nimport * as elements from 'attention-lab/elements';\n"
      + 'console.log(loadAttentionLab, elements.loadAttentionLab);\n');
    const bundled = require('esbuild').buildSync({ entryPoints: ['page.mjs'], absWorkingDir: project, bundle: true, platform: 'browser', format: 'esm', write: false, metafile: true, logLevel: 'silent' });
    const inputs = Object.keys(bundled.metafile.inputs);
    assert.deepEqual(inputs.filter((f) => /attention-lab(-elements)?\.mjs$/.test(f)).sort(),
      ['node_modules/attention-lab/dist/attention-lab-elements.mjs', 'node_modules/attention-lab/dist/attention-lab.mjs'], 'the elements module and one engine module');

    // The shipped model where the docs send authors (dist/), and by name for a bundler: importing
    // 'attention-lab/model' registers it where <model-attention model> looks (the bundle below runs
    // in node, where the elements module defines nothing and the model still registers).
    assert.ok(fs.readFileSync(path.join(installed, 'dist', 'attention-lab-model.js')).equals(fs.readFileSync(path.join(root, 'web', 'model', 'attention-lab-model.js'))));
    fs.writeFileSync(path.join(project, 'model-page.mjs'), "import model from 'attention-lab/model';\nimport { loadAttentionLab } from 'attention-lab/elements';\n"
      + 'const lab = await loadAttentionLab();\n'
      + 'console.log(JSON.stringify({ name: model.name, registered: globalThis.AttentionLabModels[model.name] === model, guesses: lab.loadModel().predict(\'the act of\').next.length }));\n');
    const modelBundle = require('esbuild').buildSync({ entryPoints: ['model-page.mjs'], absWorkingDir: project, bundle: true, platform: 'browser', format: 'esm', outfile: path.join(project, 'model-bundle.mjs'), metafile: true, logLevel: 'silent' });
    assert.ok(Object.keys(modelBundle.metafile.inputs).includes('node_modules/attention-lab/dist/attention-lab-model.mjs'), 'the bundler resolves attention-lab/model');
    assert.deepEqual(JSON.parse(run(process.execPath, [path.join(project, 'model-bundle.mjs')], project)), { name: 'wordnet-small', registered: true, guesses: 5 });
    assert.equal(JSON.parse(run(process.execPath, ['-e', "console.log(JSON.stringify(require('attention-lab/model').name))"], project)), 'wordnet-small');

    const esm = "import { loadAttentionLab } from 'attention-lab'; const lab = await loadAttentionLab(); console.log(lab.softmax([0, Math.log(3)]).data.join(','));";
    const [a, b] = run(process.execPath, ['--input-type=module', '-e', esm], project).trim().split(',').map(Number);
    assert.ok(Math.abs(a - 0.25) < 1e-6 && Math.abs(b - 0.75) < 1e-6, `import gives softmax [0.25, 0.75] (${a}, ${b})`);

    // The repository's consumer, type-checked against the installed declarations.
    fs.copyFileSync(path.join(root, 'tests', 'types', 'consumer.ts'), path.join(project, 'consumer.ts'));
    const config = JSON.parse(fs.readFileSync(path.join(root, 'tests', 'types', 'tsconfig.json'), 'utf8'));
    config.files = ['consumer.ts'];
    fs.writeFileSync(path.join(project, 'tsconfig.json'), JSON.stringify(config));
    const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    run(process.execPath, [tsc, '-p', project, '--pretty', 'false'], project);
    // A node program has no DOM library: the API's declarations must not need one.
    fs.mkdirSync(path.join(project, 'server'));
    fs.writeFileSync(path.join(project, 'server', 'node-only.ts'), "import { loadAttentionLab } from 'attention-lab';\n"
      + 'export const w: Promise<number> = loadAttentionLab().then((lab) => lab.attention([[1]], [[1]], [[1]]).weights.get(0, 0));\n');
    fs.writeFileSync(path.join(project, 'server', 'tsconfig.json'), JSON.stringify({
      compilerOptions: { strict: true, noEmit: true, lib: ['es2022'], types: [], module: 'nodenext', moduleResolution: 'nodenext' },
      files: ['node-only.ts'],
    }));
    run(process.execPath, [tsc, '-p', path.join(project, 'server'), '--pretty', 'false'], project);
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
});
