// The play page: a new game's form, then the game (sheets, dice, moves), all through /api/.
"use strict";

const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };
const PERSON = "";

let options = null;   // /api/options
let bots = null;      // /api/bots of the table being set up: the bots it takes, the strongest first
let botsAsked = 0;    // the number of the last /api/bots request: an older answer is dropped
let botsProblem = ""; // the reason /api/bots gave for the table, while it is shown
let game = null;      // the game as the server last gave it
let shown = [];       // the dice in screen order (kept dice stay where they are)
let kept = new Set(); // screen positions the person keeps
let botKept = new Set(); // positions the bot kept in its last roll, shown for a moment
let hint = null;
let busy = false;
let botsRunning = false;
let chances = null;   // /api/games/ID/chances of the position shown (null: none asked or none to show)
let chancesAsked = 0; // the number of the last chances request: an older answer is dropped

const $ = (id) => document.getElementById(id);

// ------------------------------------------------------------------ dice on screen
function arrange(before, positions, dice) {
  // the dice at ``positions`` stay; the new ones (``dice`` minus the kept) fill the others, sorted
  const fresh = dice.slice();
  for (const i of positions) fresh.splice(fresh.indexOf(before[i]), 1);
  fresh.sort((a, b) => a - b);
  return before.map((d, i) => (positions.has(i) ? d : fresh.shift()));
}

function positionsOf(faces, screen) {
  const taken = new Set();
  for (const face of faces) {
    const i = screen.findIndex((d, j) => d === face && !taken.has(j));
    if (i >= 0) taken.add(i);
  }
  return taken;
}

function sameDice(a, b) {
  return a.length === b.length && [...a].sort().join() === [...b].sort().join();
}

// ------------------------------------------------------------------ the game from the server
function setGame(next) {
  const last = next.log[next.log.length - 1];
  botKept = new Set();
  if (game && game.id === next.id && last && last.n === next.moves && last.kind === "roll"
      && next.moves === game.moves + 1 && shown.length === next.dice.length) {
    const positions = positionsOf(last.kept, shown);
    shown = arrange(shown, positions, next.dice);
    if (next.seats[last.player].bot) botKept = positions;
  } else if (!game || game.id !== next.id || !sameDice(shown, next.dice)) {
    shown = next.dice.slice();
  }
  if (!game || next.moves !== game.moves) {
    kept = new Set();
    hint = null;
  }
  game = next;
  render();
  refreshChances();
}

// ------------------------------------------------------------------ chances to win (or of a target)
const targetOf = (g) => {
  const stored = g ? localStorage.getItem(`yamb-target-${g.id}`) : null;
  return stored === null || stored === "" ? null : Number(stored);
};

const wantsChances = () => game && coachOn() && (game.seats.length > 1 || targetOf(game) !== null);

async function refreshChances() {
  // every player's chance at the position shown, asked after each change of the game (the newest answer wins)
  const asked = ++chancesAsked;
  if (!wantsChances()) {
    chances = null;
    renderChances();
    return;
  }
  const target = targetOf(game);
  const moves = game.moves;
  try {
    const answer = await api("GET", `/api/games/${game.id}/chances${target === null ? "" : `?target=${target}`}`);
    if (asked !== chancesAsked) return;
    chances = { ...answer, moves };
  } catch (error) {
    if (asked !== chancesAsked) return;
    chances = { error: error.message, moves };
  }
  renderChances();
}

function renderChances() {
  const box = $("chances-box");
  box.hidden = !chances || !wantsChances();
  if (box.hidden) return;
  if (chances.error) {
    box.replaceChildren(el("span", { class: "note" }, `chances: ${chances.error}`));
    return;
  }
  const goal = chances.target === null ? "Chance to win" : `Chance of ${chances.target} or more`;
  const kind = chances.exact ? "exact" : "estimated";
  box.replaceChildren(
    el("div", { class: "chances-head" }, el("strong", {}, goal),
      el("span", { class: `kind ${kind}`, title: chances.method, "data-testid": "chances-kind" }, kind)),
    el("ul", {}, chances.players.map((p, i) => el("li", { "data-testid": `chance-${p.player}` },
      el("i", { class: `swatch c${i % 6}` }), el("span", { class: "name" }, p.name),
      el("span", { class: "bar" }, el("b", { style: `width: ${(100 * p.chance).toFixed(1)}%` })),
      el("span", { class: "pct" }, percent(p.chance))))));
}

const personToMove = () => game && !game.over && !game.seats[game.to_move].bot;

async function act(body) {
  if (busy || !personToMove()) return;
  busy = true;
  showError("");
  try {
    // the move names the state it is meant for: a stale or repeated one is refused (409), then the game is read again
    setGame(await api("POST", `/api/games/${game.id}/moves`, { moves: game.moves, ...body }));
  } catch (error) {
    showError(error.message);
    await api("GET", `/api/games/${game.id}`).then(setGame, () => {});
  } finally {
    busy = false;
    render();
  }
  runBots();
}

async function runBots() {
  if (botsRunning) return;
  botsRunning = true;
  try {
    while (game && !game.over && game.seats[game.to_move].bot) {
      await sleep(Number($("speed").value));
      setGame(await api("POST", `/api/games/${game.id}/bot`, { moves: game.moves }));
    }
  } catch (error) {
    showError(error.message);
    await api("GET", `/api/games/${game.id}`).then(setGame, () => {});
  } finally {
    botsRunning = false;
  }
}

function showError(text) {
  $("error").textContent = text;
}

// ------------------------------------------------------------------ drawing
function render() {
  if (!game) return;
  renderSheets();
  renderStatus();
  renderDice();
  renderActions();
  renderHint();
  renderCoach();
  renderLog();
  renderSummary();
}

function cellKey(column, row) {
  return `${column}:${row}`;
}

function renderSheets() {
  const mover = game.over ? -1 : game.to_move;
  const person = personToMove();
  const fillable = new Map(game.fillable.map((c) => [cellKey(c.column, c.row), c.score]));
  const announceable = new Set(game.announceable.map((c) => cellKey(c.column, c.row)));
  const values = new Map((hint && hint.values ? hint.values : []).map((c) => [cellKey(c.column, c.row), c.value]));
  const suggested = hint && hint.column ? cellKey(hint.column, hint.row) : null;
  const last = game.log[game.log.length - 1];
  const justFilled = last && last.kind === "fill" ? `${last.player}:${cellKey(last.column, last.row)}` : null;
  const sheets = game.seats.map((seat, p) => {
    const head = el("tr", {},
      el("th", { class: "rowname" }, ""),
      game.columns.map((label, c) => el("th", { title: game.kinds[c] }, label)),
      el("th", { class: "sum" }, "Σ"));
    const body = [];
    for (const row of game.sheet_rows) {
      if (row.number !== null) {
        body.push(el("tr", {},
          el("th", { class: "rowname" }, el("span", { class: "num" }, String(row.number)), words(row.name)),
          game.columns.map((label) => {
            const key = cellKey(label, row.name);
            const score = seat.table[label][row.name];
            const classes = [];
            if (justFilled === `${p}:${key}`) classes.push("just");
            if (score !== null) return el("td", { class: classes.join(" ") }, String(score));
            if (p !== mover) return el("td", { class: "open" }, "·");
            const value = values.has(key)
              ? el("span", { class: "value", title: "the hint bot's value of this cell now" },
                (values.get(key) >= 0 ? "+" : "") + values.get(key).toFixed(1))
              : null;
            if (key === suggested) classes.push("suggested");
            if (person && fillable.has(key)) {
              return el("td", { class: classes.join(" ") },
                el("button", { class: "fill", "data-testid": `fill-${label}-${row.name}`,
                  title: `write ${fillable.get(key)} in ${label} · ${words(row.name)}`,
                  onclick: () => act({ kind: "fill", column: label, row: row.name }) },
                `+${fillable.get(key)}`), value);
            }
            if (person && announceable.has(key)) {
              return el("td", { class: classes.join(" ") },
                el("button", { class: "announce", "data-testid": `announce-${label}-${row.name}`,
                  title: `announce ${label} · ${words(row.name)}`,
                  onclick: () => act({ kind: "announce", column: label, row: row.name }) }, "◇"), value);
            }
            return el("td", { class: ["open", ...classes].join(" ") }, "·", value);
          }),
          el("td", { class: "sum" }, "")));
      } else {
        const cells = game.columns.map((label) => seat.table[label][row.name]);
        let whole = cells.reduce((a, b) => a + b, 0);
        if (row.name === "total" && seat.yahtzee_bonus) {
          body.push(el("tr", { class: "computed" }, el("th", { class: "rowname" }, "yahtzee bonus"),
            game.columns.map(() => el("td", {}, "")), el("td", { class: "sum" }, String(seat.yahtzee_bonus))));
        }
        if (row.name === "total") whole = seat.score;
        body.push(el("tr", { class: `computed ${row.name}` },
          el("th", { class: "rowname" }, words(row.name)),
          cells.map((v) => el("td", {}, String(v))),
          el("td", { class: "sum", "data-testid": row.name === "total" ? `total-${p}` : null }, String(whole))));
      }
    }
    const title = el("div", { class: "sheet-title" },
      el("span", { class: "who" }, seat.name),
      el("span", { class: "kind" }, seat.bot ? `bot · ${seat.bot}` : "person"),
      el("span", { class: "score" }, String(seat.score)));
    return el("div", { class: `sheet${p === mover ? " to-move" : ""}`, "data-testid": `sheet-${p}` },
      title, el("table", {}, el("thead", {}, head), el("tbody", {}, body)));
  });
  $("sheets").replaceChildren(...sheets);
}

function cellText(cell) {
  return `${cell.column} · ${words(cell.row)}`;
}

function renderStatus() {
  const parts = [];
  if (game.over) {
    parts.push(el("div", { class: "who" }, "Game over"));
  } else {
    const seat = game.seats[game.to_move];
    parts.push(el("div", { class: "who" }, seat.bot ? `${seat.name} is playing…` : `${seat.name} to move`));
    parts.push(el("div", { class: "counters" },
      el("span", {}, `turn ${game.turn} of ${game.turns_per_player}`),
      el("span", { class: "rolls", "data-testid": "roll-counter" },
        `roll ${game.roll} of ${game.rolls_allowed}`,
        el("span", { class: "pips" }, ...Array.from({ length: game.rolls_allowed },
          (_, i) => el("i", { class: i < game.roll ? "used" : "" }))))));
    if (game.announced) parts.push(el("div", { class: "flag" }, `announced ${cellText(game.announced)}`));
    if (game.must_answer) parts.push(el("div", { class: "flag" }, `must answer ${cellText(game.must_answer)}`));
  }
  $("status").replaceChildren(...parts);
}

function die(face, attrs) {
  const pips = Array.from({ length: 9 }, (_, i) => el("i", { class: PIPS[face].includes(i) ? "pip" : "" }));
  return el("button", { ...attrs, "data-face": String(face), "aria-label": `die showing ${face}` }, ...pips);
}

function renderDice() {
  const person = personToMove() && game.can_roll && !busy;
  const suggested = hint && hint.kind === "roll" ? positionsOf(hint.keep, shown) : new Set();
  $("dice").replaceChildren(...shown.map((face, i) => {
    const classes = ["die"];
    if (kept.has(i) || botKept.has(i)) classes.push("kept");
    if (suggested.has(i)) classes.push("suggest");
    return die(face, {
      class: classes.join(" "), "data-testid": `die-${i}`, disabled: !person,
      title: person ? "click to keep or release" : null,
      onclick: () => { kept.has(i) ? kept.delete(i) : kept.add(i); render(); },
    });
  }));
}

function renderActions() {
  const person = personToMove();
  $("dice").hidden = game.over;
  document.querySelector(".actions").hidden = game.over;
  $("help").hidden = game.over;
  const roll = $("roll");
  roll.disabled = !person || !game.can_roll || busy || kept.size === shown.length;
  roll.textContent = kept.size ? `Roll ${shown.length - kept.size} dice` : "Roll all";
  $("hint").disabled = !person || busy;
  let help = "";
  if (person) {
    if (game.must_announce) help = "Only announce cells are open: click a ◇ cell to announce it.";
    else if (game.can_roll) help = "Click dice to keep them, then roll; or click a green cell to write the dice there.";
    else if (game.fillable.length) help = "No roll left: click a green cell to write the dice there.";
    if (!game.must_announce && game.announceable.length) help += " A ◇ cell may be announced now.";
  }
  $("help").textContent = help;
}

function renderHint() {
  const box = $("hint-box");
  box.hidden = !hint;
  if (!hint) return;
  const keep = hint.kind === "roll" ? " The dashed dice are the ones it keeps." : "";
  const note = keep + (hint.values ? " Small numbers in the open cells: the bot's value of each (its score now against what the row is expected to bring)."
    : ` ${hint.bot} keeps no cell values.`);
  const chances = hint.outcomes && hint.outcomes.length ? el("table", { class: "outcomes", "data-testid": "outcomes" },
    el("thead", {}, el("tr", {}, el("th", {}, "after this keep"), el("th", {}, "next roll"), el("th", {}, "by the last roll"))),
    el("tbody", {}, hint.outcomes.map((o) => el("tr", {}, el("th", {}, words(o.row)),
      el("td", {}, percent(o.next_roll)), el("td", {}, percent(o.by_end)))))) : null;
  box.replaceChildren(el("strong", {}, "Hint: "), hint.text, chances, el("div", { class: "note" }, note,
    chances ? " The chances are exact: the next roll alone, and by the turn's last roll keeping the dice that chase each pattern." : ""));
}

const percent = (p) => (p >= 1 ? "100%" : p <= 0 ? "0%" : p >= 0.9995 ? ">99.9%" : p < 0.0005 ? "<0.1%" : `${(100 * p).toFixed(1)}%`);
const coachOn = () => $("coach-on").checked;

function coachText(note) {
  if (note.loss < 0.005) return `best move (expected final score ${note.best_value.toFixed(1)})`;
  return `${note.label}, −${note.loss.toFixed(1)} points; better: ${note.best} (${note.best_value.toFixed(1)} against ${note.value.toFixed(1)})`;
}

function winText(note) {
  // the mover's chance to win before and after the move, and the chance lost against the move best for winning
  if (note.win_before === null || note.win_before === undefined) return "";
  let text = `chance to win ${percent(note.win_before)} → ${percent(note.win_after)}`;
  if (note.win_loss >= 0.0005) text += `, −${(100 * note.win_loss).toFixed(1)} points of chance (better for winning: ${note.win_best})`;
  return `${text} (${note.win_exact ? "exact" : "estimated"})`;
}

const valuesText = (note) => (note.exact ? "exact values" : `the ${note.coach} bot's values`);

function renderCoach() {
  // the coach's word on the latest move of a person
  const box = $("coach-box");
  const latest = [...game.log].reverse().find((entry) => entry.coach);
  box.hidden = !coachOn() || !latest || game.over;
  if (box.hidden) return;
  box.className = `coach ${latest.coach.label}`;
  const win = winText(latest.coach);
  box.replaceChildren(el("strong", {}, "Coach: "), `${logText(latest)}: ${coachText(latest.coach)}`,
    ...(win ? [el("div", { class: "win", "data-testid": "coach-win" }, win)] : []),
    el("div", { class: "note" }, `(${valuesText(latest.coach)})`));
}

function logText(entry) {
  const name = game.seats[entry.player].name;
  const s = name === "You" ? "" : "s";
  if (entry.kind === "roll") {
    return `${name} keep${s} ${entry.kept.length ? entry.kept.join(" ") : "nothing"}, roll${s} ${entry.dice.join(" ")}`;
  }
  const cell = `${entry.column} · ${words(entry.row)} (dice ${entry.dice.join(" ")})`;
  if (entry.kind === "fill") return `${name} write${s} ${entry.score} in ${cell}`;
  return `${name} announce${s} ${cell}`;
}

function renderLog() {
  const items = game.log.map((entry) => el("li", { class: `p${entry.player % 4} ${entry.kind}` }, logText(entry),
    entry.coach && coachOn() ? el("span", { class: `badge ${entry.coach.label}`, "data-testid": `coach-${entry.n}`,
      title: `${coachText(entry.coach)} (${valuesText(entry.coach)})${winText(entry.coach) ? `; ${winText(entry.coach)}` : ""}` },
    entry.coach.loss < 0.05 ? "✓" : `−${entry.coach.loss.toFixed(1)}`) : null));
  const log = $("log");
  log.replaceChildren(...items);
  log.scrollTop = log.scrollHeight;
}

function renderSummary() {
  const box = $("summary");
  box.hidden = !game.summary;
  if (!game.summary) return;
  const rows = game.summary.standings.map((s) => el("tr", {},
    el("td", {}, `${s.place}.`), el("td", {}, s.name), el("td", { class: "num" }, String(s.score))));
  box.replaceChildren(
    el("h2", {}, "Final scores"),
    el("table", {}, el("tbody", {}, rows)),
    el("p", {}, game.summary.text),
    el("div", { class: "actions" },
      el("button", { class: "primary", onclick: () => { location.hash = ""; showSetup(); } }, "New game"),
      el("button", { "data-testid": "review-summary", onclick: () => openReview(game) }, "Review the game")));
}

// ------------------------------------------------------------------ the new-game form
function presetOf(name) {
  return options.presets.find((p) => p.name === name);
}

let tableColumns = [];

function renderColumns() {
  $("columns").replaceChildren(...tableColumns.map((kind, i) => el("span", { class: "chip" }, kind,
    el("button", { type: "button", "aria-label": `remove ${kind}`,
      onclick: () => { tableColumns.splice(i, 1); renderColumns(); } }, "×"))));
  refreshBots();
}

function fillPreset(name, table) {
  const preset = presetOf(name);
  $("preset").value = name;
  $("dice-count").replaceChildren(...preset.dice.map((d) => el("option", { value: String(d) }, `${d} dice`)));
  if (table && table.dice) $("dice-count").value = String(table.dice);
  $("joker-label").hidden = !preset.jokers.length;
  $("joker").replaceChildren(...preset.jokers.map((j) => el("option", { value: j }, j)));
  if (table && table.joker) $("joker").value = table.joker;
  tableColumns = (table ? table.columns : preset.columns).slice();
  renderColumns();
}

function botChoices() {
  const runs = options.runs.filter((r) => r.has_best)
    .map((r) => el("option", { value: r.bot }, `run ${r.name} (best player)`));
  return [el("option", { value: PERSON }, "person"),
    ...bots.bots.map((b) => el("option", { value: b }, `bot: ${b}`)), ...runs];
}

function showTarget() {
  // a target score is for a player alone
  $("target-label").hidden = document.querySelectorAll(".seat").length !== 1;
}

function tableQuery() {
  const query = new URLSearchParams({ preset: $("preset").value, dice: $("dice-count").value,
    columns: tableColumns.join(","), players: String(Math.max(1, document.querySelectorAll(".seat").length)) });
  if (!$("joker-label").hidden) query.set("joker", $("joker").value);
  return query;
}

async function refreshBots() {
  // the bots the table takes (the server's word); a seat whose bot the table refuses gets the default bot
  const asked = ++botsAsked;
  let answer;
  try {
    answer = await api("GET", `/api/bots?${tableQuery()}`);
  } catch (error) {
    if (asked === botsAsked) $("setup-error").textContent = botsProblem = error.message;
    return;
  }
  showTarget();
  if (asked !== botsAsked) return;
  bots = answer;
  if (botsProblem && $("setup-error").textContent === botsProblem) $("setup-error").textContent = "";
  botsProblem = "";
  for (const select of document.querySelectorAll(".seat-bot")) {
    const chosen = select.value;
    select.replaceChildren(...botChoices());
    select.value = chosen;
    if (select.value !== chosen) {
      select.value = bots.default_bot;
      select.dispatchEvent(new Event("change"));
    }
  }
}

function addSeat(name, bot) {
  const kind = el("select", { class: "seat-bot", "aria-label": "who plays" }, botChoices());
  kind.value = bot;
  const nameInput = el("input", { class: "seat-name", value: name, maxlength: "40", "aria-label": "name" });
  kind.addEventListener("change", () => { nameInput.value = kind.value || "You"; });
  const row = el("div", { class: "seat" }, nameInput, kind,
    el("button", { type: "button", class: "quiet", "aria-label": "remove player",
      onclick: () => { row.remove(); refreshBots(); } }, "×"));
  $("seats").append(row);
}

async function showSetup(run) {
  game = null;
  $("game").hidden = true;
  $("setup").hidden = false;
  $("seats").replaceChildren();
  let table = null;
  if (run) {
    try {
      table = (await api("GET", `/api/runs/${encodeURIComponent(run)}`)).table;
    } catch (error) {
      $("setup-error").textContent = error.message;
    }
  }
  fillPreset(table ? table.preset : "yamb", table);
  addSeat("You", PERSON);
  if (table) addSeat(`run ${run}`, `run:${run}`);
  else addSeat(bots.default_bot, bots.default_bot);
}

async function startGame(event) {
  event.preventDefault();
  const seats = [...document.querySelectorAll(".seat")].map((row) => {
    const bot = row.querySelector(".seat-bot").value;
    return { name: row.querySelector(".seat-name").value.trim() || "player", bot: bot || null };
  });
  const body = { preset: $("preset").value, dice: Number($("dice-count").value), columns: tableColumns, seats };
  if (!$("joker-label").hidden) body.joker = $("joker").value;
  if ($("seed").value !== "") body.seed = Number($("seed").value);
  $("setup-error").textContent = "";
  try {
    const created = await api("POST", "/api/games", body);
    if (seats.length === 1 && $("target").value !== "") localStorage.setItem(`yamb-target-${created.id}`, $("target").value);
    location.hash = `g=${created.id}`;
    openGame(created);
  } catch (error) {
    $("setup-error").textContent = error.message;
  }
}

function openGame(data) {
  $("setup").hidden = true;
  $("game").hidden = false;
  game = null;
  showError("");
  setGame(data);
  runBots();
}

async function start() {
  // the seats start with the default table's bots; each change of the table asks for its own (refreshBots)
  [options, bots] = await Promise.all([api("GET", "/api/options"), api("GET", "/api/bots")]);
  $("preset").replaceChildren(...options.presets.map((p) => el("option", { value: p.name }, p.name)));
  $("preset").addEventListener("change", () => fillPreset($("preset").value));
  $("dice-count").addEventListener("change", refreshBots);
  $("joker").addEventListener("change", refreshBots);
  $("add-column").append(...options.column_kinds.map((k) => el("option", { value: k }, k)));
  $("add-column").addEventListener("change", (event) => {
    if (event.target.value && tableColumns.length < 12) tableColumns.push(event.target.value);
    event.target.value = "";
    renderColumns();
  });
  $("add-seat").addEventListener("click", () => {
    if (document.querySelectorAll(".seat").length < options.max_players) {
      addSeat(bots.default_bot, bots.default_bot);
      refreshBots();
    }
  });
  $("setup-form").addEventListener("submit", startGame);
  $("speed").value = localStorage.getItem("yamb-speed") || $("speed").value;
  $("coach-on").checked = localStorage.getItem("yamb-coach") !== "off";
  $("coach-on").addEventListener("change", () => {
    localStorage.setItem("yamb-coach", coachOn() ? "on" : "off");
    render();
    refreshChances();
  });
  $("review-open").addEventListener("click", () => openReview(game));
  $("review-close").addEventListener("click", closeReview);
  $("speed").addEventListener("change", () => localStorage.setItem("yamb-speed", $("speed").value));
  $("roll").addEventListener("click", () => act({ kind: "roll", keep: [...kept].map((i) => shown[i]) }));
  $("hint").addEventListener("click", async () => {
    try {
      hint = await api("GET", `/api/games/${game.id}/hint`);
      render();
    } catch (error) {
      showError(error.message);
    }
  });
  window.addEventListener("hashchange", route);
  route();
}

async function route() {
  // #g=ID: that game; #run=NAME: a new game against the run's best player; nothing: a new game
  const params = new URLSearchParams(location.hash.slice(1));
  if (params.get("g")) {
    if (game && game.id === params.get("g")) return;
    try {
      openGame(await api("GET", `/api/games/${encodeURIComponent(params.get("g"))}`));
      return;
    } catch (error) {
      $("setup-error").textContent = error.message;
    }
  }
  showSetup(params.get("run"));
}

start();
