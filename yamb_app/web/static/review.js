// The review of a game: each player's expected final score (or chance to win) turn by turn (an SVG curve),
// the expected points (and chance) each lost, and the decisions that lost most, with the better one.
"use strict";

const REVIEW_COLOURS = ["#2f5bd3", "#c2410c", "#15803d", "#7e22ce", "#0e7490", "#a16207"]; // .swatch.cN in style.css
const SVG_NS = "http://www.w3.org/2000/svg";

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children.flat(Infinity)) if (child) node.append(child);
  return node;
}

function reviewCurve(review, win) {
  // x: the turn (the last point is the final score), y: the expected final score (win: the chance, in %)
  const width = 640, height = 260, left = 48, right = 12, top = 12, bottom = 30;
  const curveOf = (p) => (win ? p.win_curve.map(([t, v]) => [t, 100 * v]) : p.curve);
  const points = review.players.flatMap(curveOf);
  if (!points.length) return null;
  const turns = Math.max(...points.map(([t]) => t));
  let low = Math.min(...points.map(([, v]) => v)), high = Math.max(...points.map(([, v]) => v));
  if (win) { low = 0; high = 100; } else if (high - low < 10) { low -= 5; high += 5; }
  const single = turns <= 1; // one turn: its points, and its one label, in the middle
  const x = (t) => (single ? (left + width - right) / 2 : left + ((t - 1) / (turns - 1)) * (width - left - right));
  const y = (v) => top + (1 - (v - low) / (high - low)) * (height - top - bottom);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => low + f * (high - low));
  const grid = ticks.map((v) => [svg("line", { class: "axis", x1: left, x2: width - right, y1: y(v), y2: y(v) }),
    svg("text", { x: left - 6, y: y(v) + 4, "text-anchor": "end" }, String(Math.round(v)))]);
  const last = review.over ? "final" : `turn ${turns}`;
  const labels = single ? [svg("text", { x: x(1), y: height - 8, "text-anchor": "middle" }, last)]
    : [svg("text", { x: x(1), y: height - 8, "text-anchor": "start" }, "turn 1"),
      svg("text", { x: x(turns), y: height - 8, "text-anchor": "end" }, last)];
  const lines = review.players.map((p, i) => {
    const colour = REVIEW_COLOURS[i % REVIEW_COLOURS.length];
    const curve = curveOf(p);
    const path = curve.map(([t, v], j) => `${j ? "L" : "M"}${x(t).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    return [svg("path", { d: path, fill: "none", stroke: colour, "stroke-width": 2.5, "data-player": p.player }),
      curve.map(([t, v]) => svg("circle", { cx: x(t), cy: y(v), r: 3, fill: colour },
        svg("title", {}, `${p.name}, turn ${t}: ${v.toFixed(1)}${win ? "%" : ""}`)))];
  });
  const what = win ? "chance to win, in percent" : "expected final score";
  return svg("svg", { viewBox: `0 0 ${width} ${height}`, class: "curve", role: "img",
    "aria-label": `each player's ${what}, turn by turn`, "data-testid": win ? "review-win-curve" : "review-curve" },
  grid, labels, lines);
}

function curveSwitch(review) {
  // the curve of expected final scores, or of chances (to win, or of the target) when the review has them
  const goal = review.target === null || review.target === undefined ? "Chance to win" : `Chance of ${review.target} or more`;
  const holder = el("div", { class: "curve-holder" }, reviewCurve(review, false));
  const heading = el("h2", {}, "Expected final score, turn by turn");
  if (!review.win) return [heading, holder];
  const show = (win) => {
    heading.textContent = win ? `${goal}, turn by turn (${review.win_exact ? "exact" : "estimated"})` : "Expected final score, turn by turn";
    holder.replaceChildren(reviewCurve(review, win));
    points.classList.toggle("on", !win);
    chance.classList.toggle("on", win);
  };
  const points = el("button", { class: "quiet on", "data-testid": "curve-points", onclick: () => show(false) }, "points");
  const chance = el("button", { class: "quiet", "data-testid": "curve-win", onclick: () => show(true) },
    review.target === null || review.target === undefined ? "chance to win" : "chance of the target");
  return [el("div", { class: "curve-head" }, heading, el("span", { class: "switch" }, points, chance)), holder,
    el("p", { class: "note", title: review.win }, `Chances ${review.win}.`)];
}

function reviewBody(review) {
  const classes = Object.keys(review.players[0] ? review.players[0].classes : {});
  const totals = el("table", { class: "totals", "data-testid": "review-totals" },
    el("thead", {}, el("tr", {}, el("th", {}, "player"), el("th", {}, "score"), el("th", { title: "expected points lost" }, "lost"),
      review.win ? el("th", { title: "chance lost against the moves best for winning" }, "chance lost") : null,
      classes.map((c) => el("th", { class: c }, c)))),
    el("tbody", {}, review.players.map((p, i) => el("tr", {},
      el("th", {}, el("i", { class: `swatch c${i % REVIEW_COLOURS.length}` }), p.name),
      el("td", {}, String(p.score)), el("td", { "data-testid": `review-loss-${p.player}` }, p.loss.toFixed(1)),
      review.win ? el("td", { "data-testid": `review-win-loss-${p.player}` },
        `${(100 * review.decisions.filter((d) => d.player === p.player).reduce((a, d) => a + d.win_loss, 0)).toFixed(1)}%`) : null,
      classes.map((c) => el("td", { class: `badge-cell ${c}` }, String(p.classes[c])))))));
  const byIndex = new Map(review.decisions.map((d) => [d.index, d]));
  const biggest = review.biggest.map((i) => byIndex.get(i)).map((d) => el("li", { class: d.label },
    el("span", { class: `badge ${d.label}` }, `−${d.loss.toFixed(1)}`),
    el("span", {}, `${review.players[d.player].name}, turn ${d.turn}, roll ${d.roll}, dice ${d.dice.join(" ")}: `,
      el("strong", {}, d.played), ` (${d.label}); better `, el("strong", {}, d.best),
      `: ${d.best_value.toFixed(1)} against ${d.value.toFixed(1)}`,
      d.win_before ? ` · chance ${percent(d.win_before[d.player])} → ${percent(d.win_after[d.player])}` : "")));
  const bounds = Object.entries(review.thresholds);
  const legend = `Points lost: the expected final score of the best decision minus that of the one played. `
    + bounds.map(([name, bound], i) => `${name} ${i ? `from ${bounds[i - 1][1]} ` : ""}below ${bound}`).join(", ")
    + `, blunder from ${bounds[bounds.length - 1][1]}.`;
  return [
    el("p", { class: "coach-line" }, `Coach: ${review.coach} (${review.values})`,
      review.over ? "" : " · the game is not over: the decisions so far"),
    totals,
    ...curveSwitch(review),
    el("h2", {}, "Biggest losses"),
    biggest.length ? el("ol", { class: "biggest", "data-testid": "review-biggest" }, biggest)
      : el("p", { class: "empty" }, "No decision lost points."),
    el("p", { class: "note" }, legend),
  ];
}

async function openReview(current) {
  if (!current) return;
  $("review").hidden = false;
  $("review-body").replaceChildren(el("p", { class: "empty" }, "The coach is valuing every decision…"));
  try {
    const target = current.seats.length === 1 ? targetOf(current) : null;
    const review = await api("GET", `/api/games/${current.id}/review${target === null ? "" : `?target=${target}`}`);
    $("review-body").replaceChildren(...reviewBody(review));
  } catch (error) {
    $("review-body").replaceChildren(el("p", { class: "error" }, error.message));
  }
}

function closeReview() {
  $("review").hidden = true;
}
