#!/usr/bin/env node
// Runs an ONNX model with ONNX Runtime (CPU) and writes every output as <name>.npy: the
// numeric reference that test/models/check-models.py compares `kiln run` against.
//
//   node test/models/ort-reference.js MODEL.onnx OUT_DIR NAME=FILE.npy... [--threads N]
//
// Inputs and outputs are .npy files (format v1.0, little-endian; f16, f32, f64, signed and
// unsigned integers of 8 to 64 bits, bool). Output names are sanitized like `kiln run --output-dir` does: characters other
// than [A-Za-z0-9_.-] become '_'. The last line of stdout gives the times:
//   ort: load 0.512 s, run 0.401 s
// Any failure prints "ort-reference: error: ..." on stderr and exits with 1 (2 for bad usage).
'use strict';

const fs = require('fs');
const path = require('path');

// onnxruntime-node is installed by scripts/setup.sh into third_party/ort (git-ignored).
const ORT_DIR = path.join(__dirname, '..', '..', 'third_party', 'ort', 'node_modules');

function fail(message, code = 1) {
  process.stderr.write(`ort-reference: error: ${message}\n`);
  process.exit(code);
}

// numpy dtype descriptor (without byte order) <-> ORT tensor type and typed array.
const DTYPES = {
  f4: {ort: 'float32', array: Float32Array},
  f8: {ort: 'float64', array: Float64Array},
  i8: {ort: 'int64', array: BigInt64Array},
  i4: {ort: 'int32', array: Int32Array},
  i2: {ort: 'int16', array: Int16Array},
  i1: {ort: 'int8', array: Int8Array},
  u8: {ort: 'uint64', array: BigUint64Array},
  u4: {ort: 'uint32', array: Uint32Array},
  u2: {ort: 'uint16', array: Uint16Array},
  u1: {ort: 'uint8', array: Uint8Array},
  f2: {ort: 'float16', array: Uint16Array},  // raw IEEE half bits
  b1: {ort: 'bool', array: Uint8Array},
};
const DESCR_OF_ORT = Object.fromEntries(Object.entries(DTYPES).map(([d, t]) => [t.ort, d]));

// Reads a .npy file into {descr, shape, data}; versions 1.0 to 3.0, C order, little-endian.
function readNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.length < 10 || buf.toString('latin1', 0, 6) !== '\x93NUMPY') {
    throw new Error(`${file}: not a .npy file`);
  }
  const major = buf[6];
  const headerLen = major === 1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8);
  const headerStart = major === 1 ? 10 : 12;
  const header = buf.toString('latin1', headerStart, headerStart + headerLen);
  const descr = /'descr':\s*'([<>|=])([a-z]\d+)'/.exec(header);
  const order = /'fortran_order':\s*(True|False)/.exec(header);
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header);
  if (!descr || !order || !shape) throw new Error(`${file}: malformed .npy header: ${header}`);
  if (descr[1] === '>') throw new Error(`${file}: big-endian data is not supported`);
  if (order[1] === 'True') throw new Error(`${file}: Fortran order is not supported`);
  const dtype = DTYPES[descr[2]];
  if (!dtype) throw new Error(`${file}: dtype ${descr[2]} is not supported`);
  const dims = shape[1].split(',').map((s) => s.trim()).filter((s) => s).map(Number);
  const count = dims.reduce((a, b) => a * b, 1);
  const offset = headerStart + headerLen;
  const bytes = count * dtype.array.BYTES_PER_ELEMENT;
  if (buf.length - offset < bytes) throw new Error(`${file}: truncated: ${count} elements expected`);
  // Copy into a fresh, aligned buffer: typed arrays need their element alignment.
  const data = new dtype.array(bytes / dtype.array.BYTES_PER_ELEMENT);
  new Uint8Array(data.buffer).set(buf.subarray(offset, offset + bytes));
  return {descr: descr[2], dims, data};
}

// Writes a .npy v1.0 file; the header is padded so that the data starts 64-byte aligned.
function writeNpy(file, descr, dims, data) {
  const shape = dims.length === 1 ? `(${dims[0]},)` : `(${dims.join(', ')})`;
  const byteOrder = descr.endsWith('1') ? '|' : '<';
  let header = `{'descr': '${byteOrder}${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
  const total = Math.ceil((10 + header.length + 1) / 64) * 64;
  header = header.padEnd(total - 10 - 1, ' ') + '\n';
  const prefix = Buffer.alloc(10);
  prefix.write('\x93NUMPY', 0, 'latin1');
  prefix[6] = 1;
  prefix[7] = 0;
  prefix.writeUInt16LE(header.length, 8);
  const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  fs.writeFileSync(file, Buffer.concat([prefix, Buffer.from(header, 'latin1'), body]));
}

const sanitize = (name) => name.replace(/[^A-Za-z0-9_.-]/g, '_');

function parseArgs(argv) {
  const args = {inputs: [], threads: 2};
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--threads') {
      args.threads = Number(argv[++i]);
      if (!Number.isInteger(args.threads) || args.threads < 1) fail('--threads needs a count', 2);
    } else if (argv[i] === '-h' || argv[i] === '--help') {
      process.stdout.write('usage: ort-reference.js MODEL.onnx OUT_DIR NAME=FILE.npy... [--threads N]\n');
      process.exit(0);
    } else if (positional.length >= 2) {
      const eq = argv[i].indexOf('=');
      if (eq <= 0) fail(`input '${argv[i]}' is not NAME=FILE.npy`, 2);
      args.inputs.push([argv[i].slice(0, eq), argv[i].slice(eq + 1)]);
    } else {
      positional.push(argv[i]);
    }
  }
  if (positional.length < 2) fail('usage: ort-reference.js MODEL.onnx OUT_DIR NAME=FILE.npy... [--threads N]', 2);
  [args.model, args.outDir] = positional;
  return args;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  let ort;
  try {
    ort = require(path.join(ORT_DIR, 'onnxruntime-node'));
  } catch (e) {
    fail(`cannot load onnxruntime-node from ${ORT_DIR} (run scripts/setup.sh): ${e.message}`);
  }

  const feeds = {};
  for (const [name, file] of args.inputs) {
    let npy;
    try {
      npy = readNpy(file);
    } catch (e) {
      fail(e.message, 2);
    }
    feeds[name] = new ort.Tensor(DTYPES[npy.descr].ort, npy.data, npy.dims);
  }

  const t0 = process.hrtime.bigint();
  let session;
  try {
    // Default graph optimization level (all); a fixed, small thread count so that the
    // reference does not take over a shared machine.
    session = await ort.InferenceSession.create(args.model, {
      executionProviders: ['cpu'],
      intraOpNumThreads: args.threads,
      interOpNumThreads: 1,
    });
  } catch (e) {
    fail(`cannot load ${args.model}: ${e.message}`);
  }
  const t1 = process.hrtime.bigint();

  const missing = session.inputNames.filter((n) => !(n in feeds));
  const unknown = Object.keys(feeds).filter((n) => !session.inputNames.includes(n));
  if (missing.length) fail(`no value for input(s) ${missing.join(', ')}`, 2);
  if (unknown.length) fail(`the model has no input(s) ${unknown.join(', ')}`, 2);

  let results;
  try {
    results = await session.run(feeds);
  } catch (e) {
    fail(`run failed: ${e.message}`);
  }
  const t2 = process.hrtime.bigint();

  fs.mkdirSync(args.outDir, {recursive: true});
  const written = new Map();
  for (const name of session.outputNames) {
    const tensor = results[name];
    const descr = DESCR_OF_ORT[tensor.type];
    if (!descr) fail(`output '${name}': type ${tensor.type} is not supported`);
    const file = sanitize(name) + '.npy';
    if (written.has(file)) fail(`outputs '${written.get(file)}' and '${name}' both sanitize to ${file}`);
    written.set(file, name);
    writeNpy(path.join(args.outDir, file), descr, tensor.dims, tensor.data);
  }
  const seconds = (a, b) => (Number(b - a) / 1e9).toFixed(3);
  process.stdout.write(`ort: load ${seconds(t0, t1)} s, run ${seconds(t1, t2)} s\n`);
}

main().catch((e) => fail(e.stack || String(e)));
