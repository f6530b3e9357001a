"""The HTML page of :mod:`domino_env.train.replay_html`: inline CSS and JavaScript, no external resource.

``__TITLE__`` is replaced by the (escaped) title and ``__DATA__`` by the JSON of
:func:`domino_env.train.replay_html.page_data`. The script only draws what the JSON holds: every state was
computed by the rules engine in Python. Elements tests read: ``body[data-frame]`` (the frame
shown), ``[data-end=...]`` (open ends: ``train-S``, ``mexican``, ``left``, ``right``),
``[data-hand-size=S]``, ``#status`` (frame, move, round, boneyard, who is to play), ``#move``,
``#result`` (the round's result, the seats it knocked out, the game's end, one line each; or the
env limit that stopped the game) and ``#rules``; a Mexican Train table is one
``div.trow[data-train=S|mexican]`` per train: a label (``svg.label``) and the tiles in their own
``div.scroll``, scrolled to the open end at every frame (``[data-hidden]``: the earlier tiles
scrolled off to the left).
"""

PAGE = r"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
  body { margin: 0; font: 14px system-ui, sans-serif; background: #1c5e3a; color: #f0f0e6; }
  header { padding: 10px 16px 6px; background: #164a2e; }
  h1 { font-size: 19px; margin: 0 0 3px; }
  h2 { font-size: 13px; font-weight: normal; color: #bed2c3; margin: 10px 0 4px; }
  .sub { font-size: 12px; color: #bed2c3; }
  #controls { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 8px 16px;
              background: #1f6a41; position: sticky; top: 0; z-index: 1; }
  button { font: inherit; padding: 4px 10px; border-radius: 6px; border: 1px solid #0e3a22;
           background: #f0f0e6; color: #123; cursor: pointer; }
  button:disabled { opacity: 0.45; cursor: default; }
  #slider { flex: 1; min-width: 160px; }
  #status { font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
  #move { padding: 8px 16px 0; font-size: 17px; min-height: 1.4em; overflow-wrap: anywhere; }
  #result { margin: 6px 16px 0; padding: 6px 10px; background: #e63c28; border-radius: 6px; white-space: pre-line; }
  #result:empty { display: none; }
  section { padding: 0 16px; }
  .scroll { overflow-x: auto; }
  .trow { display: flex; border-radius: 6px; margin-bottom: 2px; }
  .trow > .scroll { flex: 1 1 auto; min-width: 0; scrollbar-width: thin; }
  .trow svg { display: block; flex: none; }
  table { border-collapse: collapse; font-variant-numeric: tabular-nums; }
  td, th { padding: 3px 12px 3px 0; text-align: left; }
  tr.acting td { color: #ffd75e; }
  td.player { max-width: 360px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  footer { padding: 12px 16px; font-size: 12px; color: #bed2c3; }
</style>
</head>
<body data-frame="0">
<header><h1 id="title">__TITLE__</h1><div class="sub" id="rules"></div></header>
<div id="controls">
  <button id="first" title="first frame (Home)">|&#x25C0; first</button>
  <button id="prevround" title="previous round (Page Up)">&#x25C0;&#x25C0; round</button>
  <button id="prev" title="back one move (left arrow)">&#x25C0; back</button>
  <button id="play" title="play / pause (space)">play</button>
  <button id="next" title="forward one move (right arrow)">next &#x25B6;</button>
  <button id="nextround" title="next round (Page Down)">round &#x25B6;&#x25B6;</button>
  <button id="last" title="last frame (End)">last &#x25B6;|</button>
  <input type="range" id="slider" min="0" value="0" aria-label="frame">
  <span id="status"></span>
</div>
<div id="move"></div>
<div id="result"></div>
<section><h2>table</h2><div id="table" role="group" aria-label="table"></div></section>
<section><h2>hands (all face up: this is a replay)</h2><div class="scroll"><svg id="hands" role="img" aria-label="hands"></svg></div></section>
<section><h2>scores</h2><table id="scores"></table></section>
<footer>Keys: &larr; / &rarr; one move, Home / End, Page Up / Page Down one round, space play / pause.
Every state shown was computed by the domino_env rules engine from the game record.</footer>
<script id="data" type="application/json">__DATA__</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("data").textContent);
const F = D.frames;
const NS = "http://www.w3.org/2000/svg";
const HALF = 22, TW = 2 * HALF, TH = HALF, STEP = TW + 4, ROWH = TH + 16, TRAIN_ROWH = TH + 18;
const LINE_ROW = 16, MARKER_ROOM = 66;  // the marker badge (and the hands' "to play") after a name
const LABEL_MIN = 130, LABEL_SHARE = 0.4;  // the label column never narrower, nor wider than this share of the table
let FULL_LABEL = 200;  // the label column the seat names ask for (up to 360 px), set by labelWidth()
let LABEL = 200;  // the label column on this window, set by labelColumn() at load and on every resize
let cur = 0, timer = null;

function el(tag, attrs, parent, text) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}
function half(g, x, y, v) {
  const r = Math.max(1.3, HALF * (v <= 9 ? 0.09 : 0.065));
  const colour = D.pip_colours[v % D.pip_colours.length];
  for (const [px, py] of D.pip_layouts[v]) el("circle", {cx: x + px * HALF, cy: y + py * HALF, r: r, fill: colour}, g);
}
function tile(g, x, y, t, outline) {
  const e = el("g", {"class": "tile", "data-tile": t[0] + "-" + t[1]}, g);
  el("rect", {x: x, y: y, width: TW, height: TH, rx: 4, fill: "#faf8ee",
              stroke: outline || "#282828", "stroke-width": outline ? 3 : 1}, e);
  el("line", {x1: x + HALF, y1: y + 3, x2: x + HALF, y2: y + TH - 3, stroke: "#787878"}, e);
  half(e, x, y, t[0]);
  half(e, x + HALF, y, t[1]);
}
function endPip(g, x, y, pip, key, label) {
  el("circle", {cx: x + TH / 2, cy: y + TH / 2, r: TH / 2, fill: "#faf8ee", stroke: "#282828"}, g);
  el("text", {x: x + TH / 2, y: y + TH / 2 + 4, "text-anchor": "middle", "font-size": 12,
              fill: "#141414", "data-end": key}, g, String(pip));
  if (label) el("text", {x: x + TH + 5, y: y + TH / 2 + 4, "font-size": 11, fill: "#bed2c3"}, g, label);
}
function badge(g, x, y, text, fill) {
  const w = 7 * text.length + 10;
  el("rect", {x: x, y: y, width: w, height: 17, rx: 5, fill: fill}, g);
  el("text", {x: x + 5, y: y + 13, "font-size": 11, fill: "#f0f0e6"}, g, text);
  return x + w + 4;
}
// A seat name is a bidi isolate (FSI .. PDI) without bidi controls of its own: a right-to-left override
// in it reversed the text after it, and a PDI or isolate initiator in it would close or open the isolate.
const BIDI_CONTROLS = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
function seatName(s) {
  return "seat " + s + (D.seats[s] ? " (\u2068" + D.seats[s].replace(BIDI_CONTROLS, "") + "\u2069)" : "");
}
// The label column: room for the widest seat name and a marker badge, 200 to 360 px (a longer name is
// shortened by fit(), whole in its tooltip).
function labelWidth() {
  const svg = el("svg", {width: 0, height: 0, style: "position: absolute"});
  document.body.appendChild(svg);
  const t = el("text", {"font-size": 14}, svg);
  let widest = 0;
  for (let s = 0; s < D.num_players; s++) {
    t.textContent = seatName(s);
    widest = Math.max(widest, t.getComputedTextLength());
  }
  svg.remove();
  return Math.min(360, Math.max(200, Math.ceil(16 + widest + MARKER_ROOM + 1)));
}
// The label column for the table's width now: a fixed 360 px column in a narrow window (8 seats,
// long names) left each train row its open end and no tile, so it takes at most LABEL_SHARE of it.
function labelColumn() {
  const room = document.getElementById("table").clientWidth;
  return Math.max(LABEL_MIN, Math.min(FULL_LABEL, Math.floor(room * LABEL_SHARE)));
}
function rowBg(g, y, width, fill, rows) { el("rect", {x: 0, y: y - 7, width: width, height: ((rows || 1) - 1) * ROWH + TH + 14, rx: 6, fill: fill}, g); }
// Shorten an SVG text to ``room`` pixels with an ellipsis (a long agent name, e.g. ppo:PATH, ran over
// the marker badge and the tiles); the whole text stays in a tooltip.
function fit(node, room) {
  const text = node.textContent;
  if (node.getComputedTextLength() <= room) return node;
  let n = text.length;
  const close = cut => cut.split("\u2068").length > cut.split("\u2069").length ? "\u2069" : "";  // keep an isolate closed
  while (n > 1 && node.getComputedTextLength() > room) {
    const cut = text.slice(0, --n);
    node.textContent = cut + "\u2026" + close(cut);
  }
  el("title", {}, node, text);
  return node;
}
function label(g, y, text, colour, room) {
  fit(el("text", {x: 8, y: y + 16, "font-size": 14, fill: colour || "#f0f0e6"}, g, text), room || LABEL - 16);
}

// A Mexican Train table: one row per train, its label fixed and its tiles in their own scroller,
// scrolled to the open end (a long train ran thousands of pixels past the window); scrolling
// left shows the earlier tiles, whose count the label gives while they are out of view.
function drawMexican(box, f) {
  const y = (TRAIN_ROWH - TH) / 2;
  for (const tr of f.trains) {
    const key = tr.owner === null ? "mexican" : String(tr.owner);
    const out = tr.owner !== null && !f.active[tr.owner];
    const acting = tr.owner !== null && tr.owner === f.to_play;
    const row = document.createElement("div");
    row.className = "trow";
    row.dataset.train = key;
    row.style.background = tr.open_rank ? "#96701e" : (acting ? "#34805a" : "#246c44");
    box.appendChild(row);
    const lab = el("svg", {"class": "label", width: LABEL, height: TRAIN_ROWH}, row);
    const name = tr.owner === null ? "Mexican train" : seatName(tr.owner);
    el("title", {}, lab, out ? name + ": out of the game" : name);
    const marker = tr.marker && !out;
    fit(el("text", {x: 8, y: 17, "font-size": 14, fill: out ? "#bed2c3" : "#f0f0e6"}, lab, name),
        LABEL - 16 - (marker ? MARKER_ROOM : 0));
    if (marker) badge(lab, LABEL - 62, 4, "marker", "#dc2828");
    const sub = el("text", {x: 8, y: 33, "font-size": 11, fill: "#bed2c3"}, lab, out ? "out of the game" : "");
    if (out) continue;
    const n = tr.tiles.length, count = n + (n === 1 ? " tile" : " tiles");
    const note = tr.open_rank ? "open double " + tr.open_rank : (tr.cover ? "cover it" : "");
    const scroller = document.createElement("div");
    scroller.className = "scroll";
    row.appendChild(scroller);
    const svg = el("svg", {"class": "tiles", width: 4 + n * STEP + TH + 8 + (note ? 90 : 0), height: TRAIN_ROWH}, scroller);
    tr.tiles.forEach((t, k) => {
      const outline = k === n - 1 && t[0] === t[1] ? (tr.open_rank ? "#e63c28" : (tr.cover ? "#ffc828" : null)) : null;
      tile(svg, 4 + k * STEP, y, t, outline);
    });
    endPip(svg, 4 + n * STEP + 2, y, tr.end, tr.owner === null ? "mexican" : "train-" + tr.owner, note);
    const hint = () => {  // the tiles at least partly scrolled off to the left
      let hidden = 0;
      while (hidden < n && 4 + hidden * STEP < scroller.scrollLeft - 1) hidden++;
      row.dataset.hidden = String(hidden);
      const says = hidden ? [count + " \u00b7 +" + hidden + " earlier \u25c0 scroll", count + " \u00b7 +" + hidden + " earlier",
                             "+" + hidden + " earlier"] : [count];
      for (const text of says) {  // the longest that fits a narrowed label, else the shortest, cut
        sub.textContent = text;
        if (sub.getComputedTextLength() <= LABEL - 16) break;
      }
      fit(sub, LABEL - 16);
    };
    scroller.addEventListener("scroll", hint);
    scroller.scrollLeft = scroller.scrollWidth;
    hint();
  }
}

function drawLine(box, f) {
  const scroller = document.createElement("div");
  scroller.className = "scroll";
  box.appendChild(scroller);
  const svg = el("svg", {role: "img", "aria-label": "line"}, scroller);
  const rows = Math.max(1, Math.ceil(f.line.length / LINE_ROW));
  const width = LABEL + (LINE_ROW + 1) * STEP + 100;
  svg.setAttribute("width", width);
  svg.setAttribute("height", 8 + rows * ROWH + 4);
  const g = el("g", {}, svg);
  for (let r = 0; r < rows; r++) rowBg(g, 10 + r * ROWH, width, "#246c44");
  if (!f.line.length) { label(g, 10, "line: empty, waiting for the lead"); return; }
  label(g, 10, "line");
  endPip(g, LABEL - TH - 62, 10, f.ends[0], "left", "left end");
  f.line.forEach((t, k) => tile(g, LABEL + (k % LINE_ROW) * STEP, 10 + Math.floor(k / LINE_ROW) * ROWH, t));
  const k = f.line.length - 1;
  endPip(g, LABEL + (k % LINE_ROW + 1) * STEP + 2, 10 + Math.floor(k / LINE_ROW) * ROWH, f.ends[1], "right", "right end");
}

// Each hand wraps onto as many rows as the window's width needs (a 2-seat double-12 deal of 43
// tiles a hand ran past a 1,280 px window, the seat names scrolling off with the tiles).
function drawHands(svg, f) {
  const perRow = Math.max(1, Math.floor((svg.parentNode.clientWidth - LABEL - 20) / STEP));
  const cols = Math.min(Math.max(8, D.longest_hand), perRow);
  const rows = f.hands.map(hand => Math.max(1, Math.ceil(hand.length / cols)));
  const width = LABEL + cols * STEP + 20;
  svg.setAttribute("width", width);
  svg.setAttribute("height", 8 + rows.reduce((a, b) => a + b, 0) * ROWH + 4);
  let y = 10;
  f.hands.forEach((hand, s) => {
    const g = el("g", {"data-hand": s}, svg);
    rowBg(g, y, width, s === f.to_play ? "#34805a" : "#246c44", rows[s]);
    const colour = D.teams ? (s % 2 ? "#ffaa78" : "#78beff") : "#f0f0e6";
    const name = fit(el("text", {x: 8, y: y + 10, "font-size": 14, fill: colour}, g, seatName(s)), LABEL - 16 - (s === f.to_play ? 64 : 0));
    if (s === f.to_play) el("tspan", {}, name, "  to play");
    const size = el("text", {x: 8, y: y + 25, "font-size": 11, fill: "#bed2c3"}, g);
    el("tspan", {"data-hand-size": s}, size, String(f.hand_sizes[s]));
    size.appendChild(document.createTextNode((f.hand_sizes[s] === 1 ? " tile" : " tiles") + (D.game === "line" && s === f.leader ? " · leader" : "")));
    hand.forEach((t, k) => tile(g, LABEL + (k % cols) * STEP, y + Math.floor(k / cols) * ROWH, t));
    y += rows[s] * ROWH;
  });
}

function drawScores(f) {
  const table = document.getElementById("scores");
  table.replaceChildren();
  const head = table.insertRow();
  const note = D.game === "mexican_train" ? "(penalty points: lower is better)" : "(first to " + D.rules.target_score + " wins)";
  for (const h of ["seat", "player", D.teams ? "team" : "", "hand", "score", note]) {
    const th = document.createElement("th"); th.textContent = h; head.appendChild(th);
  }
  for (let s = 0; s < D.num_players; s++) {
    const row = table.insertRow();
    if (s === f.to_play) row.className = "acting";
    const team = D.teams ? (s % 2 ? "1+3" : "0+2") : "";
    // the name without bidi controls, as seatName() gives it (an override reversed it), and cut to its
    // column with an ellipsis, whole in its tooltip (a long name without spaces widened the page)
    const player = (D.seats[s] || "").replace(BIDI_CONTROLS, "");
    for (const v of [s, player, team, f.hand_sizes[s] + (f.hand_sizes[s] === 1 ? " tile" : " tiles"), f.scores[s], ""]) row.insertCell().textContent = String(v);
    row.cells[1].className = "player";
    if (player) row.cells[1].title = player;
  }
}

// The seats a round knocked out of an elimination game, in domino-play's words (one line each); a
// winner among them is a seat of a game where every seat left reached the limit (the lowest total wins).
function knockedText(f) {
  const limit = D.rules.elimination_limit, lines = [];
  const won = (f.knocked_out || []).filter(s => f.game_winners.includes(s));
  for (const s of f.knocked_out || []) {
    if (!won.includes(s)) lines.push(seatName(s) + " is out of the game (score " + f.scores[s] + " reached the limit of " + limit + ")");
  }
  if (won.length) lines.push("every seat left reached the limit of " + limit + ": the lowest total wins");
  return lines;
}
// One count per seat, "[12,out,0,31]": a seat knocked out before this round holds no hand in it.
function seatCounts(f, values) {
  return "[" + values.map((v, s) => f.active && !f.active[s] ? "out" : String(v)).join(",") + "]";
}
function roundLines(f) {
  const r = f.result;
  if (r.termination === "annulled") return ["round " + (f.round + 1) + " annulled: dealt again"];
  const who = r.winners.length ? r.winners.map(seatName).join(", ") : "nobody (a void round: it scores nothing)";
  let text = "round " + (f.round + 1) + " over (" + r.termination.replace("_", " ") + "): won by " + who +
             " · pips left " + seatCounts(f, r.pips) + " · points " + seatCounts(f, r.points);
  const lines = [text, ...knockedText(f)];
  if (f.game_over) lines.push("game over, won by " + f.game_winners.map(seatName).join(", "));
  return lines;
}
function resultText(f) {
  const moves = f.move + (f.move === 1 ? " move" : " moves");
  if (f.stopped) return "the game was stopped by the env's limit " + f.stopped + " (" + moves + ")";
  const lines = f.result ? roundLines(f) : [];
  // a game quit before its end (domino-play's q, Ctrl-C): the record holds no later move
  if (f.unfinished) lines.push("the record ends here, before the end of its " + f.unfinished + " (" + moves + ")");
  return lines.join("\n");
}

function show(i) {
  cur = Math.max(0, Math.min(F.length - 1, i));
  const f = F[cur];
  document.body.dataset.frame = String(cur);
  document.getElementById("slider").value = String(cur);
  const boneyard = D.boneyard ? "boneyard " + f.boneyard : "no boneyard";  // block and Cuban have none
  const where = D.game === "mexican_train"
    ? "station " + f.station + "-" + f.station + " · " + boneyard
    : boneyard + " · leader seat " + f.leader;
  const toPlay = f.stopped ? " · stopped (" + f.stopped + ")"
    : f.to_play === null ? "" : " · to play: " + seatName(f.to_play) + (f.phase ? " (" + f.phase + ")" : "");
  document.getElementById("status").textContent =
    "frame " + cur + "/" + (F.length - 1) + " · move " + f.move + "/" + D.num_moves + " · round " + (f.round + 1) + " · " + where + toPlay;
  document.getElementById("move").textContent = f.move ? "move " + f.move + ": " + f.text : f.text;
  if (f.kind === "deal") document.getElementById("move").textContent = f.text;
  document.getElementById("result").textContent = resultText(f);
  const table = document.getElementById("table"), hands = document.getElementById("hands");
  table.replaceChildren();
  hands.replaceChildren();
  if (D.game === "mexican_train") drawMexican(table, f); else drawLine(table, f);
  drawHands(hands, f);
  drawScores(f);
  document.getElementById("first").disabled = document.getElementById("prev").disabled = cur === 0;
  document.getElementById("prevround").disabled = cur === 0;
  document.getElementById("last").disabled = document.getElementById("next").disabled = cur === F.length - 1;
  document.getElementById("nextround").disabled = cur === F.length - 1;
}

function roundStart(from, direction) {
  let i = from + direction;
  while (i > 0 && i < F.length - 1 && F[i].kind !== "deal") i += direction;
  return i;
}
function togglePlay() {
  const button = document.getElementById("play");
  if (timer) { clearInterval(timer); timer = null; button.textContent = "play"; return; }
  if (cur === F.length - 1) show(0);
  button.textContent = "pause";
  timer = setInterval(() => { if (cur >= F.length - 1) togglePlay(); else show(cur + 1); }, 700);
}

const rules = D.rules;
const ruleText = Object.keys(rules).filter(k => rules[k] !== null).map(k => k + "=" + rules[k]).join(", ");
document.getElementById("rules").textContent =
  D.env_id + " · episode " + D.episode + " · " + (D.seed === null ? "no seed" : "seed " + D.seed + (D.seed_deals === false ? " (the deals are not this seed's: an edited record, or deals given to reset)" : "")) + " · " + D.num_moves + " moves · " + ruleText;
const slider = document.getElementById("slider");
slider.max = String(F.length - 1);
slider.addEventListener("input", () => show(Number(slider.value)));
document.getElementById("first").onclick = () => show(0);
document.getElementById("last").onclick = () => show(F.length - 1);
document.getElementById("prev").onclick = () => show(cur - 1);
document.getElementById("next").onclick = () => show(cur + 1);
document.getElementById("prevround").onclick = () => show(roundStart(cur, -1));
document.getElementById("nextround").onclick = () => show(roundStart(cur, 1));
document.getElementById("play").onclick = togglePlay;
document.addEventListener("keydown", (e) => {
  const keys = {ArrowRight: () => show(cur + 1), ArrowLeft: () => show(cur - 1), Home: () => show(0),
                End: () => show(F.length - 1), PageDown: () => show(roundStart(cur, 1)),
                PageUp: () => show(roundStart(cur, -1)), " ": togglePlay};
  if (e.altKey || e.ctrlKey || e.metaKey) return;  // the browser's own (Alt+Left: back)
  if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
});
FULL_LABEL = labelWidth();
LABEL = labelColumn();
window.addEventListener("resize", () => { LABEL = labelColumn(); show(cur); });  // tiles and open ends in view
show(0);
</script>
</body>
</html>
"""
