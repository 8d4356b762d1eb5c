// The runs page: every run under the server's --runs with its fitness curve, redrawn every few seconds.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const W = 560, H = 250, PAD = { left: 48, right: 14, top: 10, bottom: 40 };  // the SVG's own units
const REFRESH_MS = 5000;

function svg(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  return node;
}

function niceTicks(lo, hi, count) {
  const span = hi - lo || 1;
  const step0 = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(step0));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= step0);
  const ticks = [];
  for (let t = Math.ceil(lo / step) * step; t <= hi + 1e-9; t += step) ticks.push(Number(t.toFixed(6)));
  return ticks;
}

function chart(curve) {
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "fitness per generation" });
  if (!curve.length) {
    const text = svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle" });
    text.textContent = "no generation logged yet";
    root.append(text);
    return root;
  }
  const gens = curve.map((p) => p.gen);
  const values = curve.flatMap((p) => [p.avg - (p.std || 0), p.avg + (p.std || 0), p.max, p.expectimax])
    .filter((v) => v !== null && v !== undefined && Number.isFinite(v));
  let [lo, hi] = [Math.min(...values), Math.max(...values)];
  const margin = (hi - lo) * 0.05 || 1;
  lo -= margin; hi += margin;
  const g0 = Math.min(...gens), g1 = Math.max(...gens) === g0 ? g0 + 1 : Math.max(...gens);
  const x = (g) => PAD.left + ((g - g0) / (g1 - g0)) * (W - PAD.left - PAD.right);
  const y = (v) => H - PAD.bottom - ((v - lo) / (hi - lo)) * (H - PAD.top - PAD.bottom);
  for (const t of niceTicks(lo, hi, 5)) {
    root.append(svg("line", { class: "axis", x1: PAD.left, x2: W - PAD.right, y1: y(t), y2: y(t), "stroke-opacity": 0.5 }));
    const label = svg("text", { x: PAD.left - 6, y: y(t) + 4, "text-anchor": "end" });
    label.textContent = String(t);
    root.append(label);
  }
  for (const t of niceTicks(g0, g1, 6).filter((t) => Number.isInteger(t))) {
    const label = svg("text", { x: x(t), y: H - 22, "text-anchor": "middle" });
    label.textContent = String(t);
    root.append(label);
  }
  const axis = svg("text", { x: (PAD.left + W - PAD.right) / 2, y: H - 3, "text-anchor": "middle" });
  axis.textContent = "generation";
  root.append(axis);
  const line = (key) => curve.filter((p) => p[key] !== null && p[key] !== undefined)
    .map((p, i) => `${i ? "L" : "M"}${x(p.gen).toFixed(1)},${y(p[key]).toFixed(1)}`).join("");
  if (curve.every((p) => p.std !== null && p.std !== undefined)) {
    const upper = curve.map((p, i) => `${i ? "L" : "M"}${x(p.gen).toFixed(1)},${y(p.avg + p.std).toFixed(1)}`).join("");
    const lower = curve.slice().reverse().map((p) => `L${x(p.gen).toFixed(1)},${y(p.avg - p.std).toFixed(1)}`).join("");
    root.append(svg("path", { class: "band", d: `${upper}${lower}Z` }));
  }
  root.append(svg("path", { class: "reference", d: line("expectimax") }));
  root.append(svg("path", { class: "mean", d: line("avg") }));
  root.append(svg("path", { class: "best", d: line("max") }));
  return root;
}

function legend() {
  const item = (color, text, dashed) => el("span", {},
    el("i", { style: `background:${dashed ? "repeating-linear-gradient(90deg,#8a90a0 0 5px,transparent 5px 9px)" : color}` }), text);
  return el("div", { class: "legend" }, item("#1f8a4c", "best"), item("#2f5bd3", "mean"),
    item("rgba(47,91,211,.3)", "mean ± std"), item("", "expectimax", true));
}

function describe(run) {
  const s = run.settings;
  const parts = [];
  if (s.game) parts.push(`${s.game}${s.columns && s.columns.length ? ` (${s.columns.join(", ")})` : ""}`);
  if (s.player) parts.push(`${s.player} network`);
  if (s.algorithm) parts.push(`${s.algorithm.toUpperCase()}, population ${s.population}`);
  parts.push(`${run.generations}${s.generations ? ` of ${s.generations}` : ""} generations`);
  return parts.join(" · ");
}

function last(curve, key) {
  const point = curve[curve.length - 1];
  return point && point[key] !== undefined && point[key] !== null ? point[key].toFixed(1) : "–";
}

async function refresh() {
  try {
    const runs = await api("GET", "/api/runs");
    const cards = [];
    for (const run of runs) {
      const detail = await api("GET", `/api/runs/${encodeURIComponent(run.name)}`);
      const play = el("button", {
        class: "primary", disabled: !run.has_best, "data-testid": `play-${run.name}`,
        title: run.has_best ? "play against this run's best player" : "the run has no best player until it finishes",
        onclick: () => { location.href = `/#run=${encodeURIComponent(run.name)}`; },
      }, run.has_best ? "Play its best player" : "Running…");
      cards.push(el("div", { class: "run card", "data-testid": `run-${run.name}` },
        el("h2", {}, run.name),
        el("div", { class: "meta" }, describe(run)),
        detail.problem ? el("p", { class: "error", "data-testid": `problem-${run.name}` }, `damaged: ${detail.problem}`) : null,
        chart(detail.curve), legend(),
        el("div", { class: "meta" },
          `last generation: mean ${last(detail.curve, "avg")}, best ${last(detail.curve, "max")}, expectimax ${last(detail.curve, "expectimax")}`),
        play));
    }
    const box = document.getElementById("runs");
    box.replaceChildren(...(cards.length ? cards
      : [el("p", { class: "empty" }, "No runs: start the server with --runs DIR (the directory yamb evolve writes its runs to).")]));
    document.getElementById("error").textContent = "";
  } catch (error) {
    document.getElementById("error").textContent = error.message;
  }
}

refresh();
setInterval(refresh, REFRESH_MS);
