// The recipe of docs/neural_players.md ("Using an ONNX player outside Python"), followed with
// onnxruntime-web under Node: read the sidecar, compute each position's features, run the graph,
// and (direct players) choose the move.
//
//   node play.mjs MODEL.onnx POSITIONS.json   ->  prints {"features": [...], "outputs": [...], "moves": [...]}
//
// A position is {cells: [score or null per cell c*R+r], dice: [faces], roll, rolls_left,
// legal_fills: [cells], legal_announces: [cells], may_roll}.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import * as ort from "onnxruntime-web";

ort.env.wasm.numThreads = 1;

export function features(side, pos) {
  const C = side.columns.length, R = side.rows.length, CR = C * R;
  const S = side.score_scale, T = side.bonus_threshold, N = side.number_rows.length;
  const seg = Object.fromEntries(side.input.layout.map((s) => [s.name, s.start]));
  const x = new Float32Array(side.input.shape[1]);
  const filled = (i) => pos.cells[i] !== null;
  const value = (i) => (filled(i) ? pos.cells[i] : side.cell_values[i]);
  let openCells = 0;
  for (let c = 0; c < C; c++) {
    let numbers = 0, filledNumbers = 0, open = 0;
    for (let r = 0; r < R; r++) {
      const i = c * R + r;
      x[seg.filled + i] = filled(i) ? 1 : 0;
      x[seg.cell_value + i] = value(i) / S;
      if (r < N) {
        numbers += value(i);
        if (filled(i)) filledNumbers += pos.cells[i];
      }
      if (!filled(i)) open++;
    }
    x[seg.numbers_margin + c] = (numbers - T) / T;
    x[seg.numbers_filled + c] = filledNumbers / T;
    x[seg.open_rows + c] = open / R;
    openCells += open;
  }
  x[seg.open_cells] = openCells / CR;
  if (side.kind !== "direct") return x;
  const counts = [0, 0, 0, 0, 0, 0];
  for (const d of pos.dice) counts[d - 1]++;
  const m = side.dice_multisets.findIndex((ms) => ms.every((k, f) => k === counts[f]));
  for (let i = 0; i < CR; i++) {
    x[seg.gain + i] = filled(i) ? 0 : (side.scores[m][i % R] - value(i)) / S;
  }
  for (let f = 0; f < 6; f++) x[seg.dice + f] = counts[f] / side.dice;
  for (let r = 0; r < R; r++) x[seg.row_score + r] = side.scores[m][r] / S;
  x[seg.first_roll] = pos.roll === 1 ? 1 : 0;
  x[seg.last_roll] = pos.rolls_left === 0 ? 1 : 0;
  x[seg.rolls_left] = pos.rolls_left / 2;
  return x;
}

export function choose(side, pos, out) {
  const seg = Object.fromEntries(side.output.layout.map((s) => [s.name, s.start]));
  let best = -Infinity, move = null;
  for (const cell of pos.legal_fills) {
    if (out[seg.fill + cell] > best) [best, move] = [out[seg.fill + cell], { fill: cell }];
  }
  for (const cell of pos.legal_announces) {
    if (out[seg.announce + cell] > best) [best, move] = [out[seg.announce + cell], { announce: cell }];
  }
  if (pos.may_roll && out[seg.roll] > best) {
    const counts = [0, 0, 0, 0, 0, 0];
    for (const d of pos.dice) counts[d - 1]++;
    let bestKeep = -Infinity;
    for (const keep of side.dice_keeps) {
      const size = keep.reduce((a, b) => a + b, 0);
      if (size >= side.dice || keep.some((k, f) => k > counts[f])) continue;
      let score = 0;
      for (let f = 0; f < 6; f++) score += out[seg.keep + f * (side.dice + 1) + keep[f]];
      if (score > bestKeep) [bestKeep, move] = [score, { keep }];
    }
  }
  return move;
}

const [modelPath, positionsPath] = process.argv.slice(2);
const side = JSON.parse(readFileSync(`${modelPath}.json`, "utf8"));
const model = readFileSync(modelPath);
if (createHash("sha256").update(model).digest("hex") !== side.onnx_sha256) {
  console.error(`${modelPath}.json belongs with another ONNX file (its onnx_sha256 is not the file's SHA-256)`);
  process.exit(2);
}
const positions = JSON.parse(readFileSync(positionsPath, "utf8"));
const session = await ort.InferenceSession.create(model);
const result = { features: [], outputs: [], moves: [] };
for (const pos of positions) {
  const x = features(side, pos);
  const feeds = { [side.input.name]: new ort.Tensor("float32", x, [1, x.length]) };
  const out = (await session.run(feeds))[side.output.name].data;
  result.features.push(Array.from(x));
  result.outputs.push(Array.from(out));
  if (side.kind === "direct") result.moves.push(choose(side, pos, out));
}
console.log(JSON.stringify(result));
