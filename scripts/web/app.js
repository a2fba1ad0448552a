// boardgym board: draws what the server sends and sends it actions (scripts/web/app.py).
"use strict";
const GAME = location.pathname.indexOf("backgammon") >= 0 ? "backgammon" : "draughts";
const $ = (id) => document.getElementById(id);
const SAVED = "boardgym-game-" + GAME;  // sessionStorage key: the id of this tab's game
const NS = "http://www.w3.org/2000/svg";
let view = null;        // the server's view of the current game
let selected = null;    // the clicked source square / point
let chosenDie = null;   // backgammon: the die the person clicked to play with
let dieChoice = null;   // backgammon: moves of one checker to one spot by different dice, to choose from
let replay = null;      // {frames, k}
let timer = null;       // watch mode's clock
let busy = false;
let pending = 0;        // requests in flight (body[data-pending]; "0" once the page has drawn their answers)
function setPending(d) { pending += d; document.body.dataset.pending = String(pending); }

document.body.classList.add(GAME);
document.title = (GAME === "draughts" ? "Russian draughts" : "Backgammon") + " · boardgym";
// the seats by their colours (player_0 is White in both games; backgammon's player_1 is Red)
const COLOURS = GAME === "draughts" ? ["White", "Black"] : ["White", "Red"];
$("seat0").textContent = GAME === "draughts" ? "White (player_0, moves first)" : "White (player_0)";
$("seat1").textContent = `${COLOURS[1]} (player_1)`;
$("watch-legend0").textContent = "White (player_0)"; $("watch-legend1").textContent = `${COLOURS[1]} (player_1)`;
let startBoard = null;  // the start position, drawn before the first game (GET /api/start)

function showError(text) {
  const box = $("error");
  box.textContent = text || "";
  box.hidden = !text;
}

async function api(method, path, body) {
  const opts = {method, headers: {}};
  if (body !== undefined) { opts.headers["Content-Type"] = "application/json"; opts.body = JSON.stringify(body); }
  let res, data;
  setPending(1);
  try {
    res = await fetch(path, opts);
    data = await res.json();
  } catch (e) {
    showError("no answer from the server: " + e);
    return null;
  } finally {
    setTimeout(() => setPending(-1), 0);  // after the caller has drawn the answer
  }
  if (!res.ok || data.error) { showError(data.error || ("HTTP " + res.status)); return null; }
  showError("");
  return data;
}

function el(tag, attrs, parent, text) {
  const e = document.createElementNS(NS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

// ---------------------------------------------------------------- draughts (draughts_render geometry)
const CELL = 60;
function sqXY(sq, flip) {
  const r = Math.floor(sq / 4), f = 2 * (sq % 4) + (r % 2);
  return flip ? [(7 - f) * CELL, r * CELL] : [f * CELL, (7 - r) * CELL];
}
function sqName(sq) { const r = Math.floor(sq / 4), f = 2 * (sq % 4) + (r % 2); return "abcdefgh"[f] + (r + 1); }

function drawDraughts(board, legal, flip) {
  const m = 22, size = 8 * CELL;
  const svg = el("svg", {width: size + 2 * m, height: size + 2 * m, viewBox: `${-m} ${-m} ${size + 2 * m} ${size + 2 * m}`, id: "board-svg"});
  el("rect", {x: -m, y: -m, width: size + 2 * m, height: size + 2 * m, fill: "#5b3b22"}, svg);
  for (let r = 0; r < 8; r++) for (let f = 0; f < 8; f++)
    el("rect", {x: f * CELL, y: r * CELL, width: CELL, height: CELL, fill: (r + f) % 2 ? "#7a9a5c" : "#efe3c4"}, svg);
  for (let i = 0; i < 8; i++) {
    const file = "abcdefgh"[flip ? 7 - i : i], rank = flip ? i + 1 : 8 - i;
    el("text", {x: i * CELL + CELL / 2, y: size + 16, "text-anchor": "middle", fill: "#f3e6c8", "font-size": 13}, svg, file);
    el("text", {x: -11, y: i * CELL + CELL / 2 + 5, "text-anchor": "middle", fill: "#f3e6c8", "font-size": 13}, svg, String(rank));
  }
  const sel = legal.length ? selected : null;  // a selection belongs to a game in play
  const froms = new Set(legal.map((a) => a.from));
  const dests = new Set(legal.filter((a) => a.from === sel).map((a) => a.to));
  for (let sq = 0; sq < 32; sq++) {
    const [x, y] = sqXY(sq, flip), cx = x + CELL / 2, cy = y + CELL / 2;
    const g = el("g", {class: "target square", "data-sq": sq, "data-name": sqName(sq)}, svg);
    el("rect", {x, y, width: CELL, height: CELL, fill: sq === sel ? "#d8b43c" : "#7a9a5c", class: sq === sel ? "selected" : "square-bg"}, g);
    const code = board.pieces[sq];
    if (code) {
      const white = code <= 2;
      el("circle", {cx, cy, r: CELL * 0.38, fill: white ? "#f7f3e8" : "#262220", stroke: white ? "#777" : "#000", "stroke-width": 2}, g);
      el("circle", {cx, cy, r: CELL * 0.27, fill: "none", stroke: white ? "#bbb" : "#555", "stroke-width": 1.5}, g);
      if (code === 2 || code === 4)
        el("text", {x: cx, y: cy + 7, "text-anchor": "middle", "font-size": 20, "font-weight": "bold", fill: white ? "#b8860b" : "#e8c547"}, g, "K");
      if (sq === board.capturing) el("circle", {cx, cy, r: CELL * 0.45, fill: "none", stroke: "#e03c31", "stroke-width": 3}, g);
    }
    if (board.jumped.indexOf(sq) >= 0) {
      el("line", {x1: x + 12, y1: y + 12, x2: x + CELL - 12, y2: y + CELL - 12, stroke: "#e03c31", "stroke-width": 4}, g);
      el("line", {x1: x + CELL - 12, y1: y + 12, x2: x + 12, y2: y + CELL - 12, stroke: "#e03c31", "stroke-width": 4}, g);
    }
    if (froms.has(sq) && sq !== sel) el("rect", {x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, fill: "none", stroke: "#f2d45c", "stroke-width": 2, class: "movable"}, g);
    if (dests.has(sq)) el("circle", {cx, cy, r: 10, fill: "#3cc24a", stroke: "#135c1a", class: "dest"}, g);
    g.addEventListener("click", () => clickTarget(sq));
  }
  markLastMove(svg, board, flip);
  return svg;
}

// ---------------------------------------------------------------- backgammon (backgammon_render layout)
const COL = 46, BH = 460, TRI = 190, BM = 20;  // BM: the margin above and below, for the point numbers
function pointX(p) {  // column of point p (1..24) numbered from the perspective's side; home at the bottom right
  if (p <= 12) { const i = 12 - p; return (i < 6 ? i : i + 1) * COL; }
  const i = p - 13; return (i < 6 ? i : i + 1) * COL;
}
function drawBackgammon(board, legal, mine) {
  const W = 14 * COL, svg = el("svg", {width: W + 20, height: BH + 2 * BM, viewBox: `-10 ${-BM} ${W + 20} ${BH + 2 * BM}`, id: "board-svg"});
  el("rect", {x: -10, y: -BM, width: W + 20, height: BH + 2 * BM, fill: "#5b3b22"}, svg);
  el("rect", {x: 0, y: 0, width: 13 * COL, height: BH, fill: "#e9dcb8"}, svg);
  el("rect", {x: 6 * COL, y: 0, width: COL, height: BH, fill: "#6d4a2c"}, svg);
  const colours = ["#f7f3e8", "#8c1c1c"], strokes = ["#666", "#3a0808"];
  if (chosenDie !== null && legal.some((a) => a.die === chosenDie)) legal = legal.filter((a) => a.die === chosenDie);
  const sel = legal.length ? selected : null;  // a selection belongs to a game in play
  const froms = new Set(legal.map((a) => a.from));
  const dests = new Set(legal.filter((a) => a.from === sel).map((a) => a.to));
  const stack = (g, cx, y0, dir, n, who) => {
    for (let k = 0; k < Math.min(n, 5); k++)
      el("circle", {cx, cy: y0 + dir * (k * 36 + 19), r: 18, fill: colours[who], stroke: strokes[who], "stroke-width": 2}, g);
    if (n > 5) el("text", {x: cx, y: y0 + dir * (4 * 36 + 19) + 5, "text-anchor": "middle", "font-size": 15, "font-weight": "bold", fill: who ? "#fff" : "#000"}, g, String(n));
  };
  for (let p = 1; p <= 24; p++) {
    const x = pointX(p), top = p > 12, g = el("g", {class: "target point", "data-point": p}, svg);
    el("rect", {x, y: top ? 0 : BH - TRI - 10, width: COL, height: TRI + 10, fill: "transparent"}, g);
    const tip = top ? TRI : BH - TRI, base = top ? 0 : BH;
    el("polygon", {points: `${x + 2},${base} ${x + COL - 2},${base} ${x + COL / 2},${tip}`, fill: p % 2 ? "#a0522d" : "#2f4f4f"}, g);
    el("text", {x: x + COL / 2, y: top ? -5 : BH + 15, "text-anchor": "middle", "font-size": 14, "font-weight": "bold", fill: "#f3e6c8", class: "point-number"}, g, String(p));
    const nx = board.x[p], no = board.o[p];
    if (nx) stack(g, x + COL / 2, base, top ? 1 : -1, nx, 0);
    if (no) stack(g, x + COL / 2, base, top ? 1 : -1, no, 1);
    if (p === sel)  // over the checkers, so that a full point shows it too
      el("rect", {x: x + 2, y: top ? 1 : BH - TRI - 9, width: COL - 4, height: TRI + 8, fill: "rgba(242, 212, 92, 0.35)", stroke: "#e0a800", "stroke-width": 4, class: "selected"}, g);
    if (froms.has(p) && p !== sel) el("rect", {x: x + 1, y: top ? 0 : BH - TRI - 10, width: COL - 2, height: TRI + 10, fill: "none", stroke: "#f2d45c", "stroke-width": 2, class: "movable"}, g);
    if (dests.has(p)) el("circle", {cx: x + COL / 2, cy: top ? TRI + 16 : BH - TRI - 16, r: 10, fill: "#3cc24a", stroke: "#135c1a", class: "dest"}, g);
    g.addEventListener("click", () => clickTarget(p));
  }
  // the bar (25 for the mover) and the borne-off trays (0)
  const bar = el("g", {class: "target bar", "data-point": 25}, svg);
  el("rect", {x: 6 * COL, y: 0, width: COL, height: BH, fill: froms.has(25) ? "#8a6a3c" : "transparent"}, bar);
  // the perspective's checkers wait on the bar in the lower half, the other side's in the upper
  const me = board.perspective;
  stack(bar, 6.5 * COL, BH / 2 + 4, 1, board.bar[me], me);
  stack(bar, 6.5 * COL, BH / 2 - 4, -1, board.bar[1 - me], 1 - me);
  if (sel === 25) el("rect", {x: 6 * COL + 2, y: 2, width: COL - 4, height: BH - 4, fill: "rgba(242, 212, 92, 0.35)", stroke: "#e0a800", "stroke-width": 4, class: "selected"}, bar);
  bar.addEventListener("click", () => clickTarget(25));
  const off = el("g", {class: "target off", "data-point": 0}, svg);
  el("rect", {x: 13 * COL + 4, y: 0, width: COL - 8, height: BH, fill: dests.has(0) ? "#3cc24a" : "#4a301c"}, off);
  el("text", {x: 13.5 * COL, y: BH - 8, "text-anchor": "middle", "font-size": 12, fill: "#fff"}, off, `off ${board.off[me]}`);
  el("text", {x: 13.5 * COL, y: 16, "text-anchor": "middle", "font-size": 12, fill: "#fff"}, off, `off ${board.off[1 - me]}`);
  off.addEventListener("click", () => clickTarget(0));
  // dice, cube, pips
  // the dice left to play; in play, a die can be clicked to move with it (and to choose between two
  // dice that take the same checker to the same spot, e.g. off)
  const usable = new Set(legal.map((a) => a.die));
  const choosing = dieChoice ? new Set(dieChoice.map((a) => a.die)) : null;
  board.dice.forEach((d, i) => {
    const x = 9 * COL + i * 44, y = BH / 2 - 30;
    const pick = (choosing && choosing.has(d)) || d === chosenDie;
    const g = el("g", {class: "die" + (usable.has(d) && legal.length ? " usable" : "") + (pick ? " chosen" : ""), "data-die": d}, svg);
    el("rect", {x, y, width: 36, height: 36, rx: 6, fill: colours[board.turn], stroke: pick ? "#22a83a" : "#000", "stroke-width": pick ? 4 : 1}, g);
    el("text", {x: x + 18, y: y + 25, "text-anchor": "middle", "font-size": 22, fill: board.turn ? "#fff" : "#000"}, g, String(d));
    if (legal.length && usable.has(d)) g.addEventListener("click", () => clickDie(d));
  });
  const [value, owner] = board.cube;
  const cy = owner < 0 ? BH / 2 - 18 : (owner === me ? BH - 44 : 8);
  el("rect", {x: 2.5 * COL, y: cy, width: 36, height: 36, rx: 4, fill: "#fff", stroke: "#000", class: "cube"}, svg);
  el("text", {x: 2.5 * COL + 18, y: cy + 24, "text-anchor": "middle", "font-size": 17, class: "cube-value"}, svg, String(value));
  if (board.offered) {  // a double on offer (replay): the new value beside the doubler's dice
    const oy = BH / 2 - 18;
    el("rect", {x: 4 * COL, y: oy, width: 36, height: 36, rx: 4, fill: "#fff6c8", stroke: "#c00", "stroke-width": 2, class: "cube offered"}, svg);
    el("text", {x: 4 * COL + 18, y: oy + 24, "text-anchor": "middle", "font-size": 17}, svg, String(board.offered));
  }
  // each side's pip count by a checker of its colour: the far side's above, the near side's below
  [[1 - me, BH / 2 - 10], [me, BH / 2 + 16]].forEach(([who, y]) => {
    el("circle", {cx: 10, cy: y - 5, r: 7, fill: colours[who], stroke: strokes[who], "stroke-width": 1.5}, svg);
    el("text", {x: 22, y, "font-size": 13, fill: "#222", class: "pips", "data-player": who}, svg, `${board.pips[who]} pips`);
  });
  markLastMove(svg, board, false);
  return svg;
}

// the last move (board.last_move from the server): its squares or points framed, a capture's path drawn
function markLastMove(svg, board, flip) {
  const last = board.last_move, box = (x, y, w, h) => el("rect", {x: x + 1.5, y: y + 1.5, width: w - 3, height: h - 3, class: "last-move"}, svg);
  if (GAME === "draughts") {
    if (!last || !last.length) return;
    const c = last.map((sq) => sqXY(sq, flip).map((v) => v + CELL / 2));
    for (const k of [0, last.length - 1]) box(c[k][0] - CELL / 2, c[k][1] - CELL / 2, CELL, CELL);
    el("polyline", {points: c.map((p) => p.join(",")).join(" "), class: "last-move path"}, svg);
    return;
  }
  if (!last || last.player < 0) return;
  const lower = last.player === board.perspective;  // its half of the bar and of the tray
  for (const p of new Set(last.moves.flat())) {
    if (p === 25) box(6 * COL, lower ? BH / 2 : 0, COL, BH / 2);
    else if (p === 0) box(13 * COL + 4, lower ? BH / 2 : 0, COL - 8, BH / 2);
    else box(pointX(p), p > 12 ? 0 : BH - TRI - 10, COL, TRI + 10);
  }
}

// ---------------------------------------------------------------- the page
// a side of a backgammon view: "White (you, player_0)"
function sideText(names, k) { return `${COLOURS[k]} (${names[k] === `player_${k}` ? names[k] : `${names[k]}, player_${k}`})`; }

// the lines about the board: each side's pips (and colour), the cube's value and owner; a match's score
function drawInfo(board, names, match) {
  $("board-info").textContent = "";
  $("match-info").hidden = !match;
  $("match-last").textContent = "";
  if (GAME !== "backgammon" || !board) return;
  const [value, owner] = board.cube;
  const cube = owner < 0 ? `cube ${value}, centred` : `cube ${value}, owned by ${names[owner]} (player_${owner})`;
  $("board-info").textContent = `pips: ${sideText(names, 0)} ${board.pips[0]} · ${sideText(names, 1)} ${board.pips[1]} · ${cube}`;
  if (!match) return;
  $("match-score").textContent = `match to ${match.length}: ${sideText(names, 0)} ${match.score[0]} – ${match.score[1]} ${sideText(names, 1)}`
    + (match.winner === null ? ` · game ${match.game}` : "");
  $("crawford").hidden = !match.crawford;
  $("post-crawford").hidden = !match.post_crawford;
  $("match-last").textContent = match.last_game ? "last game: " + match.last_game : "";
}

function render() {
  const box = $("board");
  box.innerHTML = "";
  const mode = $("mode").value;
  $("log").classList.toggle("captions", mode === "replay");  // replay captions carry their own numbers
  drawInfo(null, null, null);
  let board, legal = [], persp = 0;
  $("archive-list").hidden = mode !== "archive";
  $("archive-note").hidden = !(view && view.archive && mode !== "archive" && mode !== "replay");
  if (view && view.archive) $("archive-note").textContent = view.archive;
  if (mode === "archive") {
    $("status").textContent = archive ? "" : "searching…";
    $("evaluation").textContent = ""; $("log").innerHTML = "";
    return;
  }
  if (mode === "replay") {
    if (!replay) { $("status").textContent = "paste or choose a record, then Load"; return; }
    const fr = replay.frames[replay.k];
    board = fr.board;
    $("status").textContent = fr.caption;
    $("evaluation").textContent = "";
    $("replay-pos").textContent = `position ${replay.k} of ${replay.frames.length - 1}`;
    const match = replay.match;
    let first = 1, last = replay.frames.length - 1;
    $("replay-game-label").hidden = !match;
    $("replay-score").textContent = "";
    if (match) {  // a match file or several PDN games: this game's moves, the score, the game selector
      const gi = match.games.findIndex((g) => g.first <= replay.k && replay.k <= g.last);
      const g = match.games[gi], n = match.names;
      first = g.first + 1; last = g.last;
      $("replay-game").value = String(gi);
      if (match.kind === "pdn") {
        $("replay-score").textContent = `game ${gi + 1} of ${match.games.length} · ${g.white} - ${g.black} · ${g.result}`;
      } else {
        const length = match.match_length ? `${match.match_length}-point match` : "money play";
        const [value, owner] = board.cube;
        const cube = owner < 0 ? `cube ${value} centred` : `cube ${value}, ${n[owner]}'s`;
        $("replay-score").textContent = `game ${g.number} (${gi + 1} of ${match.games.length}) · ${length} · score ${n[0]} ${fr.score[0]} - ${fr.score[1]} ${n[1]} · ${cube}`
          + (board.offered ? ` · doubled to ${board.offered}` : "");
      }
    }
    const log = $("log"); log.innerHTML = "";
    for (let i = first; i <= last; i++) {
      const li = document.createElement("li"); li.textContent = replay.frames[i].caption;
      li.dataset.frame = String(i);
      if (i === replay.k) { li.style.fontWeight = "bold"; li.className = "current"; }
      li.onclick = () => replayGo(i);
      log.appendChild(li);
    }
    box.appendChild(replay.game === "draughts" ? drawDraughts(board, [], false) : drawBackgammon(board, [], 0));
    drawInfo(board, match && match.names ? match.names : ["player_0", "player_1"], null);
    return;
  }
  $("replay-game-label").hidden = true;
  $("replay-score").textContent = "";
  if (!view) {
    $("status").textContent = "press New game"; $("evaluation").textContent = ""; $("log").innerHTML = "";
    if (startBoard) box.appendChild(GAME === "draughts" ? drawDraughts(startBoard, [], false) : drawBackgammon(startBoard, [], 0));
    return;
  }
  board = view.board;
  sessionStorage.setItem(SAVED, view.id);  // this tab's game, found again after a reload
  if (view.mode === "play") { legal = view.legal; persp = view.seat; }
  if (dieChoice && !legal.length) dieChoice = null;
  if (legal.length && new Set(legal.map((a) => a.from)).size === 1) selected = legal[0].from;
  box.appendChild(GAME === "draughts" ? drawDraughts(board, legal, persp === 1) : drawBackgammon(board, legal, persp));
  drawInfo(board, view.names, view.match);
  const log = $("log"); log.innerHTML = "";
  for (const line of view.log) { const li = document.createElement("li"); li.textContent = line; log.appendChild(li); }
  log.parentElement.scrollTop = log.parentElement.scrollHeight;
  let status;
  if (view.over) status = view.result;
  else if (view.mode === "watch") status = `${view.names[view.acting]} (player_${view.acting}) to act`;
  else if (view.acting !== view.seat) status = "the agent is thinking";
  else if (GAME === "backgammon" && view.cube_choices.length) status = view.cube_choices.length === 2 && view.cube_choices[0] === "take"
      ? `${view.names[1 - view.seat]} doubles: take or drop?` : "before your roll: roll or double?";
  else if (GAME === "backgammon" && dieChoice) status = "which die? click it (or a button below)";
  else if (GAME === "backgammon") status = `you rolled ${view.dice.join("-")}: click a checker, then a green spot`
      + (chosenDie !== null ? ` (moving with the ${chosenDie})` : "");
  else status = board.capturing >= 0 ? "go on capturing: click a green spot" : "your move: click a piece, then a green spot";
  $("status").textContent = status;
  $("evaluation").textContent = view.evaluation ? "evaluation: " + view.evaluation : "";
  $("undo").disabled = !view.can_undo;
  const choices = (view.cube_choices || []);
  document.querySelectorAll("#cube-buttons button").forEach((b) => { b.disabled = choices.indexOf(b.dataset.cube) < 0; });
  const box2 = $("die-choice");
  box2.innerHTML = "";
  box2.hidden = !dieChoice;
  if (dieChoice) {
    const where = dieChoice[0].to === 0 ? "bear off" : `move to ${dieChoice[0].to}`;
    box2.appendChild(document.createTextNode(`${where} from ${dieChoice[0].from} with:`));
    for (const m of dieChoice) {
      const b = document.createElement("button");
      b.textContent = `the ${m.die}`; b.dataset.die = String(m.die); b.dataset.action = String(m.action);
      b.onclick = () => send({action: m.action});
      box2.appendChild(b);
    }
  }
}

async function send(body) {
  if (busy || !view) return;
  busy = true;
  selected = null; dieChoice = null; chosenDie = null;
  const id = view.id;
  $("status").textContent = "the agent is thinking…";
  const v = await api("POST", `/api/games/${id}/action`, body);
  busy = false;
  if (v && view && view.id === id) view = v;  // not a game started meanwhile
  render();
}

function clickTarget(target) {
  if (!view || view.mode !== "play" || busy) return;
  let moves = view.legal.filter((a) => a.from === selected && a.to === target);
  if (chosenDie !== null && moves.some((a) => a.die === chosenDie)) moves = moves.filter((a) => a.die === chosenDie);
  dieChoice = null;
  if (moves.length === 1) { send({action: moves[0].action}); return; }
  if (moves.length > 1) { dieChoice = moves; render(); return; }  // two dice, one spot: ask which
  selected = view.legal.some((a) => a.from === target) ? target : null;
  render();
}

function clickDie(d) {
  if (!view || view.mode !== "play" || busy) return;
  if (dieChoice) {
    const move = dieChoice.find((a) => a.die === d);
    if (move) { send({action: move.action}); return; }
  }
  chosenDie = chosenDie === d ? null : d;
  if (selected !== null && !view.legal.some((a) => a.from === selected && (chosenDie === null || a.die === chosenDie))) selected = null;
  render();
}

const num = (id) => ($(id).value === "" ? null : Number($(id).value));
// a match's start score (the server checks it): [player_0's, player_1's] and the Crawford flag,
// sent only when given
function startScore(body, prefix) {
  const a = num(prefix + "score0"), b = num(prefix + "score1");
  if (a !== null || b !== null) body.score = [a ?? 0, b ?? 0];
  if ($(prefix + "crawford-start").checked) body.crawford = true;
}

async function newGame() {
  stopWatch();
  selected = null; chosenDie = null; dieChoice = null;
  const body = {game: GAME, mode: "play", agent: $("agent").value, seat: Number($("seat").value),
    seed: num("seed") || 0, depth: num("depth"), time_limit: num("time-limit"), options: $("options").value.trim() || null};
  if (GAME === "draughts") body.fen = $("fen").value.trim() || null;
  else { body.position_id = $("position-id").value.trim() || null; body.cube = $("cube").checked; body.dice = $("dice").value.trim() || null; body.match = num("match") || 0; startScore(body, ""); }
  $("status").textContent = "starting…";
  const v = await api("POST", "/api/games", body);
  if (v) view = v;
  render();
}

async function download() {
  if (!view) { showError("no game yet"); return; }
  setPending(1);
  const res = await fetch(`/api/games/${view.id}/record`).finally(() => setTimeout(() => setPending(-1), 0));
  if (!res.ok) { const d = await res.json().catch(() => ({})); showError(d.error || "HTTP " + res.status); return; }
  const name = /filename="([^"]+)"/.exec(res.headers.get("Content-Disposition") || "");
  const blob = await res.blob();
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name ? name[1] : (GAME === "draughts" ? "game.pdn" : "game.mat");
  document.body.appendChild(a); a.click(); a.remove();
}

// watch
let watchRunId = 0;     // a new run (or a pause) ends the ticks of the one before, even mid-request
function stopWatch() { watchRunId++; if (timer) { clearTimeout(timer); timer = null; } }
async function watchNew() {
  stopWatch();
  selected = null; chosenDie = null; dieChoice = null;
  const settings = [0, 1].map((k) => ({depth: num("depth" + k), time_limit: num("time-limit" + k), options: $("options" + k).value.trim() || null}));
  const body = {game: GAME, mode: "watch", agents: [$("agent0").value, $("agent1").value], agent_settings: settings,
    seed: num("watch-seed") || 0};
  if (GAME === "draughts") body.fen = $("watch-fen").value.trim() || null;
  else { body.position_id = $("watch-position-id").value.trim() || null; body.cube = $("watch-cube").checked; body.match = num("watch-match") || 0; startScore(body, "watch-"); }
  $("status").textContent = "starting…";
  const v = await api("POST", "/api/games", body);
  if (v) view = v;
  render();
}
async function watchStep(run) {
  if (!view || view.mode !== "watch" || view.over || busy) { if (!busy) stopWatch(); return !!busy; }
  busy = true;
  const id = view.id;
  const v = await api("POST", `/api/games/${id}/step`);
  busy = false;
  if (!v) { stopWatch(); render(); return false; }
  if (view && view.id === id) view = v;  // not a game started meanwhile
  render();
  return run === undefined || run === watchRunId ? !view.over : false;
}
function watchRun() {
  stopWatch();
  const run = watchRunId;
  const tick = async () => {
    timer = null;
    if (run !== watchRunId) return;
    const more = await watchStep(run);
    if (more && run === watchRunId) timer = setTimeout(tick, 1000 / Number($("speed").value));
  };
  timer = setTimeout(tick, 0);
}

// the archive: the games kept, filtered; replay, take up or download one
let archive = null;     // {games, total, offset}
const ARCHIVE_PAGE = 25;
const RESULT_TEXT = {player_0: "player_0 won", player_1: "player_1 won", draw: "draw", stopped: "stopped", unfinished: "unfinished"};
async function archiveSearch(offset) {
  const q = new URLSearchParams({game: GAME, limit: String(ARCHIVE_PAGE), offset: String(offset || 0)});
  for (const k of ["player", "result", "source", "since", "until"]) {
    const v = $("archive-" + k).value.trim();
    if (v) q.set(k, v);
  }
  const data = await api("GET", "/api/archive?" + q.toString());
  archive = data ? {games: data.games, total: data.total, offset: offset || 0} : null;
  drawArchive();
  render();
}
function button(text, cls, onclick) {
  const b = document.createElement("button");
  b.textContent = text; b.className = cls; b.onclick = onclick;
  return b;
}
function drawArchive() {
  const body = $("archive-list").querySelector("tbody");
  body.innerHTML = "";
  if (!archive) { $("archive-count").textContent = ""; return; }
  const {games, total, offset} = archive;
  $("archive-count").textContent = total ? `games ${offset + 1}-${offset + games.length} of ${total}` : "no games found";
  $("archive-newer").disabled = offset === 0;
  $("archive-older").disabled = offset + games.length >= total;
  for (const g of games) {
    const tr = document.createElement("tr");
    tr.dataset.uid = g.uid;
    const result = g.result === "unfinished" || !g.how ? RESULT_TEXT[g.result] : `${RESULT_TEXT[g.result]}: ${g.how}`;
    const m = g.score;  // a backgammon match: its length and score (the final one once over)
    const score = m ? `match to ${m.length}: ${m.score[0]}-${m.score[1]}` + (g.over ? "" : `, game ${m.game}`) + (m.crawford ? " (Crawford)" : "") : "";
    for (const text of [g.created.replace("T", " "), g.player_0, g.player_1, result, score, g.source]) {
      const td = document.createElement("td"); td.textContent = text; tr.appendChild(td);
    }
    const n = document.createElement("td"); n.className = "archive-actions"; n.textContent = String(g.n_actions); tr.appendChild(n);
    const cell = document.createElement("td");
    const web = g.source === "web-play" || g.source === "web-watch";
    cell.appendChild(button("Replay", "archive-replay", () => archiveReplay(g.uid)));
    if (web && !g.over) cell.appendChild(button("Resume", "archive-resume", () => archiveResume(g.uid)));
    cell.appendChild(button("Download", "archive-download", () => archiveDownload(g.uid)));
    tr.appendChild(cell);
    body.appendChild(tr);
  }
}
async function archiveReplay(uid) {
  const data = await api("GET", `/api/archive/${uid}/replay`);
  if (!data) return;
  view = null;
  loadReplay(data);
  $("mode").value = "replay";
  setMode();
}
async function archiveResume(uid) {
  const v = await api("GET", `/api/games/${uid}`);
  if (!v) return;
  view = v;
  $("mode").value = v.mode;
  setMode();
}
async function archiveDownload(uid) {
  setPending(1);
  const res = await fetch(`/api/archive/${uid}/record`).finally(() => setTimeout(() => setPending(-1), 0));
  if (!res.ok) { const d = await res.json().catch(() => ({})); showError(d.error || "HTTP " + res.status); return; }
  const name = /filename="([^"]+)"/.exec(res.headers.get("Content-Disposition") || "");
  const blob = await res.blob();
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name ? name[1] : (GAME === "draughts" ? "game.pdn" : "game.mat");
  document.body.appendChild(a); a.click(); a.remove();
}

// replay
function loadReplay(data) {
  selected = null; chosenDie = null; dieChoice = null;
  replay = {game: data.game, frames: data.frames, match: data.match, k: 0};
  const sel = $("replay-game"); sel.innerHTML = "";
  if (data.match) data.match.games.forEach((g, i) => {
    const o = document.createElement("option"); o.value = String(i);
    o.textContent = data.match.kind === "pdn" ? `game ${g.number}: ${g.white} - ${g.black} (${g.result})`
      : `game ${g.number}: ${g.score[0]}-${g.score[1]} → ${g.score_after[0]}-${g.score_after[1]}`;
    sel.appendChild(o);
  });
}
async function replayLoad() {
  stopWatch();
  const data = await api("POST", "/api/replay", {text: $("replay-text").value});
  if (data) loadReplay(data);
  render();
}
function replayGo(k) { if (replay) { replay.k = Math.max(0, Math.min(replay.frames.length - 1, k)); render(); } }

function setMode() {
  const mode = $("mode").value;
  for (const m of ["play", "watch", "replay", "archive"]) $(m + "-controls").hidden = m !== mode;
  stopWatch();
  selected = null; chosenDie = null; dieChoice = null;  // a selection belongs to the game it was made in
  if (mode === "replay" || mode === "archive" || (view && view.mode !== mode)) view = null;
  showError("");
  if (mode === "archive") archiveSearch(0);
  render();
}

async function init() {
  $("new-game").onclick = newGame;
  $("undo").onclick = async () => { if (!view) return; selected = null; const v = await api("POST", `/api/games/${view.id}/undo`); if (v) view = v; render(); };
  $("download").onclick = download;
  $("watch-download").onclick = download;
  document.querySelectorAll("#cube-buttons button").forEach((b) => { b.onclick = () => send({cube: b.dataset.cube}); });
  $("watch-new").onclick = watchNew;
  $("watch-run").onclick = watchRun;
  $("watch-pause").onclick = stopWatch;
  $("watch-step").onclick = () => { stopWatch(); watchStep(); };
  $("replay-load").onclick = replayLoad;
  $("replay-first").onclick = () => replayGo(0);
  $("replay-back").onclick = () => replayGo(replay ? replay.k - 1 : 0);
  $("replay-forward").onclick = () => replayGo(replay ? replay.k + 1 : 0);
  $("replay-last").onclick = () => replayGo(replay ? replay.frames.length - 1 : 0);
  $("replay-game").onchange = () => { if (replay && replay.match) replayGo(replay.match.games[Number($("replay-game").value)].first); };
  document.addEventListener("keydown", (e) => {
    if ($("mode").value !== "replay" || !replay || /INPUT|TEXTAREA|SELECT/.test(e.target.tagName)) return;
    if (e.key === "ArrowRight") replayGo(replay.k + 1);
    else if (e.key === "ArrowLeft") replayGo(replay.k - 1);
  });
  $("replay-file").onchange = async (e) => { const f = e.target.files[0]; if (f) { $("replay-text").value = await f.text(); replayLoad(); } };
  $("mode").onchange = () => setMode();
  $("archive-search").onclick = () => archiveSearch(0);
  $("archive-newer").onclick = () => archiveSearch(Math.max(0, (archive ? archive.offset : 0) - ARCHIVE_PAGE));
  $("archive-older").onclick = () => archiveSearch((archive ? archive.offset : 0) + ARCHIVE_PAGE);
  const start = await api("GET", `/api/start/${GAME}`);
  if (start) startBoard = start.board;
  const agents = await api("GET", "/api/agents");
  if (agents) for (const id of ["agent", "agent0", "agent1"]) {
    for (const name of agents[GAME]) { const o = document.createElement("option"); o.value = o.textContent = name; $(id).appendChild(o); }
    $(id).value = "greedy";
  }
  const saved = sessionStorage.getItem(SAVED);
  if (saved) {  // a reload: this tab's game goes on (each tab keeps its own)
    const v = await api("GET", `/api/games/${encodeURIComponent(saved)}`);
    if (v && v.game === GAME) { view = v; $("mode").value = v.mode; } else sessionStorage.removeItem(SAVED);
  }
  setMode();
}
init();
