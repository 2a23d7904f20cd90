// litnav's page: three panes over the HTTP API. Every view state lives in the URL's hash
// (map, node, paper, tab, filters, job), so a reload or a shared link shows the same thing; the
// basket and the papers marked as known are the reader's own lists, kept in localStorage.
"use strict";

const COLOURS = ["#1f77b4", "#e15759", "#59a14f", "#f28e2b", "#76b7b2", "#edc948", "#b07aa1",
  "#ff9da7", "#9c755f", "#4e79a7", "#8cd17d", "#d37295"];
const FILTERED_COLOUR = "#b8bec6";
const KNOWN_COLOUR = "#7a5195";
const METRICS = {
  cd: "CD index: +1 when later work cites this paper but not its references (disruptive), −1 when it cites both (consolidating).",
  cd_pct: "Share of the corpus's papers with a lower CD index.",
  novelty: "Uzzi novelty: how atypical the paper's pairs of references are against randomized citation graphs (10th-percentile z; lower = more novel).",
  nov_pct: "Share of the corpus's papers less novel than this one.",
  in_degree: "Papers of the corpus citing it.",
  out_degree: "Papers of the corpus it cites.",
  external: "References to works outside the corpus.",
};

// ---------- small helpers ----------
const $ = (sel) => document.querySelector(sel);

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "class") el.className = v;
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

function svg(tag, attrs, ...children) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v);
  }
  for (const c of children.flat()) if (c) el.append(c);
  return el;
}

async function api(path, options = {}) {
  const response = await fetch(path, { headers: { "content-type": "application/json" }, ...options });
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try { const body = await response.json(); message = body.error.message; } catch (_) { /* not JSON */ }
    throw new Error(message);
  }
  return response;
}
const getJson = async (path) => (await api(path)).json();
const postJson = async (path, body) => (await api(path, { method: "POST", body: JSON.stringify(body) })).json();

function highlight(text, words) {
  if (!words.length) return [text];
  const pattern = new RegExp("(" + words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|") + ")", "ig");
  return text.split(pattern).map((part, i) => (i % 2 ? h("mark", {}, part) : part));
}

const fmt = (x, digits = 3) => (x === null || x === undefined ? "—" : Number(x).toFixed(digits));
// Percentile ranks arrive in [0, 100] (litnav_graph::percentile).
const pct = (x) => (x === null || x === undefined ? "—" : `${x.toFixed(0)}th percentile`);

// ---------- state in the URL ----------
function readState() {
  const p = new URLSearchParams(location.hash.slice(1));
  return Object.fromEntries(p.entries());
}
function setState(changes, replace = false) {
  const state = { ...readState(), ...changes };
  for (const k of Object.keys(state)) if (state[k] === "" || state[k] === null || state[k] === undefined) delete state[k];
  const hash = "#" + new URLSearchParams(state).toString();
  if (replace) history.replaceState(null, "", hash); else history.pushState(null, "", hash);
  render();
}

// ---------- the reader's lists ----------
const lists = {
  get(name) { try { return JSON.parse(localStorage.getItem("litnav." + name) || "{}"); } catch (_) { return {}; } },
  put(name, value) { localStorage.setItem("litnav." + name, JSON.stringify(value)); },
};
function toggle(name, paper) {
  const list = lists.get(name);
  if (list[paper.id]) delete list[paper.id]; else list[paper.id] = paper.title;
  lists.put(name, list);
  updateBasketCount();
}
function updateBasketCount() { $("#basket-count").textContent = Object.keys(lists.get("basket")).length; }

// ---------- caches ----------
const cache = { maps: new Map(), graphs: new Map(), timelines: new Map(), scores: new Map(), counts: new Map(), checks: new Map(), topics: null, corpus: null };
async function loadMap(id) {
  if (!cache.maps.has(id)) cache.maps.set(id, await getJson(`/api/maps/${id}`));
  return cache.maps.get(id);
}

function findNode(node, id) {
  if (node.id === id) return node;
  for (const child of node.subtopics || []) { const found = findNode(child, id); if (found) return found; }
  return null;
}
function trail(node, id, acc = []) {
  acc.push(node);
  if (node.id === id) return acc;
  for (const child of node.subtopics || []) { if (trail(child, id, acc)) return acc; }
  acc.pop();
  return null;
}
function paperCount(node) {
  const ids = new Set();
  (function walk(n) { (n.paper_ids || []).forEach((p) => ids.add(p)); (n.subtopics || []).forEach(walk); })(node);
  return ids.size;
}
function themeColour(map, themeIndex) {
  const theme = map.subtopics[themeIndex];
  if (!theme) return FILTERED_COLOUR;
  return theme.filtered || theme.id === "filtered" ? FILTERED_COLOUR : COLOURS[themeIndex % COLOURS.length];
}
function themeIndexOf(map, nodeId) {
  return map.subtopics.findIndex((t) => nodeId === t.id || nodeId.startsWith(t.id + "."));
}

// ---------- rendering ----------
let renderToken = 0;
async function render() {
  const token = ++renderToken;
  const state = readState();
  document.querySelectorAll("#tabs button").forEach((b) => b.setAttribute("aria-selected", String(b.dataset.tab === (state.tab || "map"))));
  renderJob(state.job);
  if (!state.map) { renderWelcome(); return; }
  let stored;
  try { stored = await loadMap(state.map); } catch (e) { $("#view").replaceChildren(h("div", { class: "error" }, `This map cannot be shown: ${e.message}`)); return; }
  if (token !== renderToken) return;
  const map = stored.map;
  const nodeId = state.node && findNode(map, state.node) ? state.node : "root";
  $("#topic").value = $("#topic").value || stored.topic;
  renderTitle(stored);
  renderTree(map, nodeId, state, await filteredCounts(stored.id));
  if (token !== renderToken) return;
  renderNodeBar(stored, nodeId);
  const tab = state.tab || "map";
  if (tab === "map") await renderBubbles(stored, nodeId, state, token);
  else if (tab === "graph") await renderGraph(stored, state, token);
  else if (tab === "timeline") await renderTimeline(stored, token);
  else if (tab === "path") await renderPathTab(state, token);
  else if (tab === "quality") await renderQualityTab(stored, nodeId, token);
  else if (tab === "score") await renderScoreTab(stored, state, token);
  await renderPaper(stored, state, token);
}

function renderWelcome() {
  $("#map-title").replaceChildren();
  $("#tree").replaceChildren();
  $("#node-bar").replaceChildren();
  $("#view").replaceChildren(h("div", { class: "welcome" },
    h("h1", {}, "Map a field"),
    h("p", {}, "Type a topic above. litnav retrieves the papers of the corpus that matter for it, organizes them into themes and subtopics you can browse and expand, and shows how they relate: who cites whom and how, which work is disruptive or novel, and the citation path from a classic to today."),
    h("p", {}, "Everything runs on this machine; maps you build stay here, each at its own permanent link.")));
  $("#paper").replaceChildren("Select a paper to see its abstract, its metrics, who cites it and how, and why it is in this map.");
  $("#paper").className = "empty";
  renderRecent();
}

async function renderRecent() {
  try {
    const maps = await getJson("/api/maps");
    $("#recent").replaceChildren(maps.length ? h("h3", {}, "Maps built here") : "",
      ...maps.slice(0, 12).map((m) => h("a", { href: `#map=${m.id}` }, `${m.topic}${m.parent ? " (expanded)" : ""} · ${m.papers}`)));
  } catch (_) { /* the list is a convenience */ }
}

function renderTitle(stored) {
  const notices = (stored.notices || []).map((n) => h("div", {}, n));
  const undone = redoStack(stored.id);
  const editing = h("span", { class: "editing" },
    stored.edits ? h("span", { class: "sub", id: "edit-count" }, `${plural(stored.edits, "correction")} by hand`) : "",
    h("button", { id: "undo", type: "button", disabled: stored.edits ? null : "", title: "Undo the last correction", onclick: () => undo(stored) }, "Undo"),
    h("button", { id: "redo", type: "button", disabled: undone.length ? null : "", title: "Redo the correction undone last", onclick: () => redo(stored) }, "Redo"));
  $("#map-title").replaceChildren(stored.topic, " ", h("span", { class: "sub" }, `${stored.papers} papers`), editing,
    h("div", { id: "edit-error", class: "error", hidden: "" }),
    notices.length ? h("div", { class: "notices" }, ...notices) : "");
}

// ---------- corrections by hand ----------
// The edit log lives with the map on the server (`/api/maps/{id}/edits`); each change sends the
// whole log with the revision this page saw, so a change made in another tab meanwhile is
// refused with a message instead of being overwritten. Undo sends the log without its last
// entry; what was undone waits for Redo in this browser's storage (a reload keeps it) until a new
// correction is made.
const redoKey = (mapId) => `litnav-redo-${mapId}`;
function redoStack(mapId) {
  try { return JSON.parse(localStorage.getItem(redoKey(mapId)) || "[]"); } catch (_) { return []; }
}
function setRedoStack(mapId, entries) {
  if (entries.length) localStorage.setItem(redoKey(mapId), JSON.stringify(entries)); else localStorage.removeItem(redoKey(mapId));
}
// Save `edits` with the redo stack set to `stack` first (put back when the save is refused).
async function saveWithRedo(stored, edits, stack) {
  const before = redoStack(stored.id);
  setRedoStack(stored.id, stack);
  if (!await saveLog(stored, edits)) setRedoStack(stored.id, before);
}
async function saveLog(stored, edits) {
  try {
    await api(`/api/maps/${stored.id}/edits`, { method: "PUT", body: JSON.stringify({ revision: stored.revision, edits }) });
  } catch (e) {
    const box = $("#edit-error");
    if (box) { box.hidden = false; box.replaceChildren(e.message, " ", h("button", { type: "button", onclick: () => reloadMap(stored.id) }, "Reload the map")); }
    return false;
  }
  reloadMap(stored.id);
  return true;
}
function reloadMap(mapId) {
  for (const store of [cache.maps, cache.checks, cache.graphs, cache.timelines, cache.counts, cache.scores]) {
    for (const key of [...store.keys()]) if (String(key).startsWith(mapId)) store.delete(key);
  }
  render();
}
async function correct(stored, change) {
  const log = await getJson(`/api/maps/${stored.id}/edits`);
  const entry = { ...change, who: lists.get("reader").name || "this browser", when: new Date().toISOString() };
  await saveWithRedo(stored, [...log.edits, entry], []);
}
// Accepting a suggestion appends its edits to the log as one change; rejecting one hides it in
// this browser (remembered per map and revision, so an edited map is judged afresh).
async function accept(stored, suggestion) {
  const log = await getJson(`/api/maps/${stored.id}/edits`);
  const who = lists.get("reader").name || "this browser", when = new Date().toISOString();
  const entries = suggestion.edits.map((change) => ({ ...change, who, when }));
  await saveWithRedo(stored, [...log.edits, ...entries], []);
}
const rejectedKey = (stored) => `litnav-rejected-${stored.id}-r${stored.revision || 0}`;
function rejected(stored) {
  try { return new Set(JSON.parse(localStorage.getItem(rejectedKey(stored)) || "[]")); } catch (_) { return new Set(); }
}
function reject(stored, suggestion, undoIt = false) {
  const ids = rejected(stored);
  if (undoIt) ids.delete(suggestion.id); else ids.add(suggestion.id);
  localStorage.setItem(rejectedKey(stored), JSON.stringify([...ids]));
  render();
}
async function undo(stored) {
  const log = await getJson(`/api/maps/${stored.id}/edits`);
  const last = log.edits.pop();
  if (last) await saveWithRedo(stored, log.edits, [...redoStack(stored.id), last]);
}
async function redo(stored) {
  const stack = redoStack(stored.id);
  const entry = stack.pop();
  if (!entry) return;
  const log = await getJson(`/api/maps/${stored.id}/edits`);
  await saveWithRedo(stored, [...log.edits, entry], stack);
}
function allNodes(node, acc = []) { acc.push(node); (node.subtopics || []).forEach((c) => allNodes(c, acc)); return acc; }
const choice = (id, options) => h("select", { id }, options.map(([value, label]) => h("option", { value }, label)));
// The corrections of one node: rename, merge into a sibling, move under another node.
function correctionForm(stored, node) {
  const parent = (trail(stored.map, node.id) || []).slice(-2)[0];
  const siblings = (parent ? parent.subtopics : []).filter((n) => n.id !== node.id && n.id !== "filtered");
  const inside = new Set(allNodes(node).map((n) => n.id));
  const targets = allNodes(stored.map).filter((n) => !inside.has(n.id) && n.id !== "filtered" && n.id !== parent?.id);
  const name = h("input", { id: "rename-to", value: node.name, "aria-label": "new name" });
  const into = choice("merge-into", siblings.map((n) => [n.id, n.name]));
  const under = choice("move-under", targets.map((n) => [n.id, n.id === "root" ? "the top level" : n.name]));
  const act = (label, id, change) => h("button", { id, type: "button", onclick: () => correct(stored, change()) }, label);
  const splits = !(node.subtopics || []).length && (node.paper_ids || []).length >= 4;
  return h("details", { class: "correct", id: "correct" }, h("summary", {}, "Correct…"),
    h("div", {}, name, act("Rename", "do-rename", () => ({ op: "rename", node: node.id, name: name.value.trim() }))),
    siblings.length ? h("div", {}, "Merge into ", into, act("Merge", "do-merge", () => ({ op: "merge", node: node.id, into: into.value }))) : "",
    targets.length ? h("div", {}, "Move under ", under, act("Move", "do-move", () => ({ op: "move_node", node: node.id, to: under.value }))) : "",
    splits ? h("div", { id: "split" }, h("button", { id: "propose-split", type: "button", onclick: () => proposeSplit(stored, node) }, "Split in two…")) : "");
}
// litnav proposes the split (two groups of the leaf's papers, the smaller under a new name);
// the person may rename the new part, then accepts it.
async function proposeSplit(stored, node) {
  const box = $("#split");
  box.replaceChildren(h("span", { class: "muted" }, "Proposing a split…"));
  let proposal;
  try { proposal = await getJson(`/api/maps/${stored.id}/split/${encodeURIComponent(node.id)}`); }
  catch (e) { box.replaceChildren(h("span", { class: "error" }, e.message)); return; }
  const change = proposal.edits[0];
  const titles = new Map((node.paper_ids || []).map((id, i) => [id, node.papers[i]]));
  const name = h("input", { id: "split-name", value: change.name, "aria-label": "the new part's name" });
  box.replaceChildren(h("div", { class: "split-proposal" },
    h("div", {}, `Move ${plural(change.papers.length, "paper")} of ${node.paper_ids.length} to a new sibling named `, name,
      h("button", { id: "do-split", type: "button", onclick: () => correct(stored, { ...change, name: name.value.trim() }) }, "Split")),
    h("ul", { class: "split-papers" }, change.papers.map((id) => h("li", {}, titles.get(id) || id)))));
}

function filterWords() { return ($("#within").value || "").toLowerCase().split(/\s+/).filter(Boolean); }

// While filters are on, every node's count of the papers passing them (from the server, which
// knows each paper's year, venue and citations); null when no filter is on.
async function filteredCounts(mapId) {
  const params = filterParams().toString();
  if (!params) return null;
  const key = `${mapId}?${params}`;
  if (!cache.counts.has(key)) {
    try { cache.counts.set(key, (await getJson(`/api/maps/${mapId}/counts?${params}`)).counts); }
    catch (_) { return null; /* the totals are shown instead */ }
  }
  return cache.counts.get(key);
}

function renderTree(map, selected, state, counts) {
  const words = filterWords();
  const matches = (node) => {
    if (!words.length) return true;
    const text = (node.name + " " + (node.papers || []).join(" ")).toLowerCase();
    return words.every((w) => text.includes(w)) || (node.subtopics || []).some(matches);
  };
  const open = new Set((trail(map, selected) || []).map((n) => n.id));
  const item = (node, themeIndex) => {
    const children = node.subtopics || [];
    const li = h("li", { role: "treeitem", class: (node.filtered || node.id === "filtered" ? "filtered " : "") + (matches(node) ? "" : "hidden"), "aria-expanded": children.length ? String(open.has(node.id) || words.length > 0) : null },
      h("div", { class: "node" + (node.id === selected ? " selected" : ""), dataset: { id: node.id }, onclick: () => setState({ node: node.id, tab: state.tab === "path" ? "map" : state.tab }) },
        h("span", {}, h("span", { class: "swatch" }), ...highlight(node.name, words)),
        counts
          ? h("span", { class: "count narrowed", title: `${counts[node.id] || 0} of ${paperCount(node)} papers pass the filters` }, `${counts[node.id] || 0}/${paperCount(node)}`)
          : h("span", { class: "count" }, String(paperCount(node)))));
    li.querySelector(".swatch").style.background = themeColour(map, themeIndex);
    if (children.length && (open.has(node.id) || words.length)) li.append(h("ul", { role: "group" }, children.map((c) => item(c, themeIndex))));
    return li;
  };
  $("#tree").replaceChildren(...map.subtopics.map((t, i) => item(t, i)));
}

function renderNodeBar(stored, nodeId) {
  const path = trail(stored.map, nodeId) || [stored.map];
  const node = path[path.length - 1];
  const crumbs = h("span", { class: "crumbs" });
  path.forEach((n, i) => {
    if (i) crumbs.append(" › ");
    crumbs.append(h("a", { onclick: () => setState({ node: n.id === "root" ? "" : n.id }) }, n.id === "root" ? stored.topic : n.name));
  });
  const bar = [crumbs];
  if (node.id !== "root") {
    bar.push(h("span", { class: "muted" }, `relevance ${fmt(node.relevance, 2)}`));
    bar.push(h("button", { id: "expand", type: "button", onclick: () => expand(stored.id, node) }, `Expand “${node.name}”`));
    if (node.id !== "filtered" && !node.filtered) bar.push(correctionForm(stored, node));
  }
  if (stored.parent) bar.push(h("a", { href: `#map=${stored.parent}`, class: "muted" }, "the map before the expansion"));
  bar.push(h("span", { class: "desc" }, node.description || ""));
  $("#node-bar").replaceChildren(...bar);
}

// ---------- Map tab: bubbles, then papers ----------
async function renderBubbles(stored, nodeId, state, token) {
  const map = stored.map;
  const node = findNode(map, nodeId);
  const children = node.subtopics || [];
  const view = h("div", {});
  if (children.length) view.append(bubbleChart(map, children));
  if (!children.length || node.id !== "root") view.append(await paperList(stored, node, state));
  if (token === renderToken) $("#view").replaceChildren(view);
}

function bubbleChart(map, nodes) {
  const width = Math.max(480, $("#view").clientWidth - 20), pad = 12;
  const sizes = nodes.map((n) => paperCount(n));
  const max = Math.max(...sizes, 1);
  const radius = (s) => 22 + 62 * Math.sqrt(s / max);
  // Bubbles in rows, largest first as the map orders them (most relevant first).
  const placed = [];
  let x = pad, y = pad, rowHeight = 0;
  nodes.forEach((n, i) => {
    const r = radius(sizes[i]);
    if (x + 2 * r > width - pad && x > pad) { x = pad; y += rowHeight + 8; rowHeight = 0; }
    placed.push({ n, r, cx: x + r, cy: y + r, size: sizes[i] });
    x += 2 * r + 8; rowHeight = Math.max(rowHeight, 2 * r);
  });
  const total = y + rowHeight;
  const chart = svg("svg", { class: "bubbles", width, height: total + pad, role: "img", "aria-label": "Subtopics" });
  for (const b of placed) {
    const colour = themeColour(map, themeIndexOf(map, b.n.id));
    // About 7 px per character of the 12 px bold label; the full name is in the tooltip.
    const fits = Math.max(4, Math.floor((1.7 * b.r) / 7));
    const label = b.n.name.length > fits ? b.n.name.slice(0, fits - 1) + "…" : b.n.name;
    const g = svg("g", { class: "bubble", dataset: "", onclick: () => setState({ node: b.n.id }) },
      svg("title", {}, `${b.n.name} — ${b.size} papers, relevance ${fmt(b.n.relevance, 2)}`),
      svg("circle", { cx: b.cx, cy: b.cy, r: b.r, fill: colour }),
      svg("text", { x: b.cx, y: b.cy - 2 }, label),
      svg("text", { x: b.cx, y: b.cy + 13, class: "n" }, `${b.size}`));
    g.setAttribute("data-id", b.n.id);
    chart.append(g);
  }
  return chart;
}

function filterParams() {
  const params = new URLSearchParams();
  const words = filterWords();
  if (words.length) params.set("q", words.join(" "));
  if ($("#year-from").value) params.set("from", $("#year-from").value);
  if ($("#year-to").value) params.set("to", $("#year-to").value);
  if ($("#venue").value) params.set("venue", $("#venue").value);
  if ($("#min-citations").value) params.set("min_citations", $("#min-citations").value);
  return params;
}

/** The mark of a paper its source says is retracted. */
const retractedBadge = () => h("span", { class: "retracted", title: "The source marks this work as retracted" }, "retracted");

async function paperList(stored, node, state) {
  const params = filterParams();
  params.set("sort", state.sort || "map");
  params.set("limit", "200");
  const box = h("div", { class: "papers" });
  let page;
  try { page = await getJson(`/api/maps/${stored.id}/nodes/${encodeURIComponent(node.id)}/papers?${params}`); }
  catch (e) { box.append(h("div", { class: "error" }, e.message)); return box; }
  const known = lists.get("known");
  const sort = h("select", { "aria-label": "Sort papers", onchange: (e) => setState({ sort: e.target.value }) },
    ["map", "year", "citations", "title"].map((s) => h("option", { value: s, selected: (state.sort || "map") === s }, s === "map" ? "most central first" : s === "year" ? "newest first" : s === "citations" ? "most cited first" : "by title")));
  box.append(h("div", { class: "head" }, h("strong", {}, `${page.total} papers`), sort));
  const words = filterWords();
  box.append(h("ol", { id: "paper-list" }, page.papers.map((p) => h("li", {
    class: (known[p.id] ? "known " : "") + (state.paper === p.id ? "active" : ""), dataset: { id: p.id },
    onclick: () => setState({ paper: p.id }),
  }, h("span", { class: "t" }, ...highlight(p.title, words)), " ", p.retracted ? [retractedBadge(), " "] : "",
  h("span", { class: "meta" }, [p.year, p.venue, `${p.citations} citations`].filter(Boolean).join(" · "))))));
  return box;
}

// ---------- Citation graph tab (WebGL; positions from the server) ----------
async function renderGraph(stored, state, token) {
  if (!cache.graphs.has(stored.id)) cache.graphs.set(stored.id, await getJson(`/api/maps/${stored.id}/graph?cap=5000`));
  const graph = cache.graphs.get(stored.id);
  if (token !== renderToken) return;
  const similarity = graph.kind === "similarity";
  const canvas = h("canvas", { id: "graph", "aria-label": `${similarity ? "Similarity" : "Citation"} graph of ${graph.nodes.length} papers` });
  const tip = h("div", { class: "tip", hidden: true });
  const links = similarity ? `${graph.edges.length} similarity links` : `${graph.edges.length} citations`;
  const legend = h("div", { class: "legend" },
    h("div", { id: "graph-counts" }, `${graph.nodes.length} papers, ${links}` + (graph.omitted ? `, ${graph.omitted} less cited omitted` : "")),
    graph.note ? h("p", { class: "note", id: "graph-note" }, graph.note) : "",
    graph.themes.map((t, i) => { const dot = h("i"); dot.style.background = themeColour(stored.map, i); return h("div", {}, dot, t.name); }));
  $("#view").replaceChildren(canvas, legend, tip);
  const known = lists.get("known");
  const maxCites = Math.max(1, ...graph.nodes.map((n) => n.citations));
  const look = {
    // A similarity graph's papers often have no citations in the corpus: drawn a little larger.
    size: (n) => (similarity ? 5 : 2.5) + 9 * Math.sqrt(Math.log1p(n.citations) / Math.log1p(maxCites)),
    // Few edges are drawn darker than a hairball's.
    edgeAlpha: Math.min(0.6, Math.max(0.18, 4 / Math.sqrt(graph.edges.length + 1))),
    colour: (n) => known[n.id] ? KNOWN_COLOUR : themeColour(stored.map, n.theme),
    selected: state.paper,
  };
  const view = { scale: 1, dx: 0, dy: 0 };
  const painter = webglPainter(canvas, graph, look) || canvasPainter(canvas, graph, look);
  canvas.dataset.renderer = painter.name;
  const draw = () => painter.draw(view);
  const nearest = (event) => {
    const rect = canvas.getBoundingClientRect(); const at = screenPlace(canvas, view);
    let best = null, bestD = 12 * 12;
    for (const n of graph.nodes) { const [x, y] = at(n); const d = (x - event.clientX + rect.left) ** 2 + (y - event.clientY + rect.top) ** 2; if (d < bestD) { best = n; bestD = d; } }
    return best;
  };
  let drag = null;
  canvas.addEventListener("mousedown", (e) => { drag = { x: e.clientX, y: e.clientY, dx: view.dx, dy: view.dy, moved: false }; });
  window.addEventListener("mouseup", () => { drag = null; });
  canvas.addEventListener("mousemove", (e) => {
    if (drag) { view.dx = drag.dx + e.clientX - drag.x; view.dy = drag.dy + e.clientY - drag.y; drag.moved = true; draw(); return; }
    const n = nearest(e);
    tip.hidden = !n;
    if (n) { tip.textContent = `${n.title || n.id} (${n.year || "?"}) · ${n.citations} citations`; tip.style.left = `${e.offsetX + 12}px`; tip.style.top = `${e.offsetY + 12}px`; }
  });
  canvas.addEventListener("click", (e) => { if (drag && drag.moved) return; const n = nearest(e); if (n) setState({ paper: n.id }); });
  canvas.addEventListener("wheel", (e) => { e.preventDefault(); view.scale = Math.min(20, Math.max(0.3, view.scale * (e.deltaY < 0 ? 1.15 : 1 / 1.15))); draw(); }, { passive: false });
  draw();
}

/** Where a node (layout coordinates in [-1, 1]) is on the canvas, in CSS pixels. */
function screenPlace(canvas, view) {
  const w = canvas.clientWidth, hgt = canvas.clientHeight, m = Math.min(w, hgt) / 2 - 20;
  return (n) => [w / 2 + view.dx + n.x * m * view.scale, hgt / 2 + view.dy + n.y * m * view.scale];
}

const hexRgb = (hex) => [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255);

/**
 * Draws the graph with WebGL: every edge in one draw call (lines), every node in another (round
 * points sized by citations), the selected paper ringed. Null when the browser has no WebGL.
 */
function webglPainter(canvas, graph, look) {
  const gl = canvas.getContext("webgl", { antialias: true, preserveDrawingBuffer: true });
  if (!gl) return null;
  const program = glProgram(gl, `
    attribute vec2 position; attribute vec3 colour; attribute float size;
    uniform vec2 scale; uniform vec2 offset; uniform float ratio;
    varying vec3 tint;
    void main() { gl_Position = vec4(position * scale + offset, 0.0, 1.0); gl_PointSize = size * ratio; tint = colour; }`, `
    precision mediump float;
    uniform float alpha; uniform float round;
    varying vec3 tint;
    void main() {
      vec2 p = gl_PointCoord * 2.0 - 1.0;
      if (round > 0.5 && dot(p, p) > 1.0) discard;
      gl_FragColor = vec4(tint, alpha);
    }`);
  if (!program) return null;
  const where = (name) => gl.getAttribLocation(program, name);
  const uniform = (name) => gl.getUniformLocation(program, name);
  const buffer = (data) => { const b = gl.createBuffer(); gl.bindBuffer(gl.ARRAY_BUFFER, b); gl.bufferData(gl.ARRAY_BUFFER, data, gl.STATIC_DRAW); return b; };
  const edgeEnds = new Float32Array(graph.edges.length * 4);
  graph.edges.forEach(([a, b], i) => edgeEnds.set([graph.nodes[a].x, graph.nodes[a].y, graph.nodes[b].x, graph.nodes[b].y], i * 4));
  const nodePositions = new Float32Array(graph.nodes.flatMap((n) => [n.x, n.y]));
  const nodeColours = new Float32Array(graph.nodes.flatMap((n) => hexRgb(look.colour(n))));
  const nodeSizes = new Float32Array(graph.nodes.map((n) => 2 * look.size(n)));
  const buffers = { edges: buffer(edgeEnds), positions: buffer(nodePositions), colours: buffer(nodeColours), sizes: buffer(nodeSizes) };
  const selected = graph.nodes.find((n) => n.id === look.selected);
  const selectedAt = selected && buffer(new Float32Array([selected.x, selected.y]));
  const attribute = (name, data, width) => {
    const at = where(name);
    if (data) { gl.bindBuffer(gl.ARRAY_BUFFER, data); gl.enableVertexAttribArray(at); gl.vertexAttribPointer(at, width, gl.FLOAT, false, 0, 0); } else gl.disableVertexAttribArray(at);
    return at;
  };
  const draw = (view) => {
    const ratio = window.devicePixelRatio || 1, w = canvas.clientWidth, hgt = canvas.clientHeight;
    if (canvas.width !== Math.round(w * ratio) || canvas.height !== Math.round(hgt * ratio)) { canvas.width = Math.round(w * ratio); canvas.height = Math.round(hgt * ratio); }
    const m = (Math.min(w, hgt) / 2 - 20) * view.scale;
    gl.viewport(0, 0, canvas.width, canvas.height);
    gl.clearColor(0, 0, 0, 0); gl.clear(gl.COLOR_BUFFER_BIT);
    // The canvas holds premultiplied colour: the colour is blended by the source's alpha, the
    // alpha itself by one ("over"). Blending the alpha by itself too would square it, and faint
    // edges (alpha 0.18) would vanish.
    gl.enable(gl.BLEND); gl.blendFuncSeparate(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA, gl.ONE, gl.ONE_MINUS_SRC_ALPHA);
    gl.useProgram(program);
    gl.uniform2f(uniform("scale"), m / (w / 2), -m / (hgt / 2));
    gl.uniform2f(uniform("offset"), view.dx / (w / 2), -view.dy / (hgt / 2));
    gl.uniform1f(uniform("ratio"), ratio);
    // Edges: one colour, faint.
    attribute("position", buffers.edges, 2);
    gl.vertexAttrib3f(attribute("colour", null), 0.35, 0.39, 0.45);
    gl.vertexAttrib1f(attribute("size", null), 1);
    gl.uniform1f(uniform("alpha"), look.edgeAlpha); gl.uniform1f(uniform("round"), 0);
    gl.drawArrays(gl.LINES, 0, graph.edges.length * 2);
    // Nodes: their theme's colour (or the known colour), sized by citations.
    attribute("position", buffers.positions, 2); attribute("colour", buffers.colours, 3); attribute("size", buffers.sizes, 1);
    gl.uniform1f(uniform("alpha"), 0.92); gl.uniform1f(uniform("round"), 1);
    gl.drawArrays(gl.POINTS, 0, graph.nodes.length);
    if (selected) {
      const one = (colour, size) => {
        attribute("position", selectedAt, 2);
        gl.vertexAttrib3f(attribute("colour", null), ...colour); gl.vertexAttrib1f(attribute("size", null), size);
        gl.uniform1f(uniform("alpha"), 1); gl.drawArrays(gl.POINTS, 0, 1);
      };
      one(hexRgb("#1d2733"), 2 * look.size(selected) + 6);
      one(hexRgb(look.colour(selected)), 2 * look.size(selected));
    }
  };
  return { name: "webgl", draw };
}

function glProgram(gl, vertexSource, fragmentSource) {
  const shader = (type, source) => { const s = gl.createShader(type); gl.shaderSource(s, source); gl.compileShader(s); return gl.getShaderParameter(s, gl.COMPILE_STATUS) ? s : null; };
  const vertex = shader(gl.VERTEX_SHADER, vertexSource), fragment = shader(gl.FRAGMENT_SHADER, fragmentSource);
  if (!vertex || !fragment) return null;
  const program = gl.createProgram();
  gl.attachShader(program, vertex); gl.attachShader(program, fragment); gl.linkProgram(program);
  return gl.getProgramParameter(program, gl.LINK_STATUS) ? program : null;
}

/** The same picture on a 2D canvas, for browsers without WebGL. */
function canvasPainter(canvas, graph, look) {
  const draw = (view) => {
    const ratio = window.devicePixelRatio || 1;
    canvas.width = canvas.clientWidth * ratio; canvas.height = canvas.clientHeight * ratio;
    const ctx = canvas.getContext("2d");
    ctx.scale(ratio, ratio);
    const at = screenPlace(canvas, view);
    ctx.strokeStyle = `rgba(90,100,115,${look.edgeAlpha})`; ctx.lineWidth = 0.7;
    ctx.beginPath();
    for (const [a, b] of graph.edges) { const [x1, y1] = at(graph.nodes[a]); const [x2, y2] = at(graph.nodes[b]); ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); }
    ctx.stroke();
    for (const n of graph.nodes) {
      const [x, y] = at(n);
      ctx.beginPath(); ctx.arc(x, y, look.size(n), 0, 2 * Math.PI);
      ctx.fillStyle = look.colour(n);
      ctx.fill();
      if (n.id === look.selected) { ctx.lineWidth = 3; ctx.strokeStyle = "#1d2733"; ctx.stroke(); }
    }
  };
  return { name: "2d", draw };
}

// ---------- Quality tab: checks without a reference ----------
// The tree's numbers, each with what it says (higher or lower is better, as the checks orient them).
const CHECKS = [
  ["entailment", "Parent–child entailment", "Share of subtopics whose name is closer to their parent's than to any other theme's (higher is better)."],
  ["semantic_taxonomic_correlation", "Semantic–taxonomic ρ", "Do nodes far apart in the tree have names far apart in meaning? Spearman's ρ (higher is better)."],
  ["balance", "Balance", "How evenly each node's papers spread over its children, 1 = even."],
  ["papers_fitting_a_sibling_better", "Papers fitting a sibling better", "Share of papers closer to a sibling's papers than to their own node's (lower is better)."],
  ["gap_papers", "Gap papers", "Papers that fit none of their parent's children, or sit beside them."],
  ["sibling_label_overlaps", "Overlapping sibling names", "Pairs of siblings whose names say nearly the same thing."],
  ["label_problems", "Nodes with a name problem", "A name restating its parent or the topic, a duplicate, or a generic name."],
];
const PROBLEM_KINDS = {
  sibling_label_overlap: "overlap", sibling_paper_overlap: "overlap", gap: "gap", unbalanced: "balance",
  restates_parent: "name", restates_topic: "name", duplicate_name: "name", generic_name: "name", not_entailed: "entailment",
};

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

async function renderQualityTab(stored, nodeId, token) {
  const out = h("div", { id: "quality" }, h("p", { class: "muted" }, "Checking the map…"));
  $("#view").replaceChildren(out);
  try {
    if (!cache.checks.has(stored.id)) cache.checks.set(stored.id, await getJson(`/api/maps/${stored.id}/checks`));
  } catch (e) { out.replaceChildren(h("div", { class: "error" }, `The checks failed: ${e.message}`)); return; }
  if (token !== renderToken) return;
  const checks = cache.checks.get(stored.id);
  const value = (v) => typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(2)) : "—";
  const flagged = new Set(checks.problems.map((p) => p.node));
  document.querySelectorAll("#tree .node").forEach((el) => el.classList.toggle("flagged", flagged.has(el.dataset.id)));
  const here = checks.problems.filter((p) => p.node === nodeId);
  const rows = (nodeId === "root" ? checks.problems : [...here, ...checks.problems.filter((p) => p.node !== nodeId)]).map((p) =>
    h("li", { class: "problem" + (p.node === nodeId ? " current" : ""), dataset: { node: p.node }, onclick: () => setState({ node: p.node, tab: "quality" }) },
      h("span", { class: `kind ${PROBLEM_KINDS[p.kind] || ""}` }, (PROBLEM_KINDS[p.kind] || p.kind).replace("_", " ")),
      h("b", {}, p.name), " ", h("span", {}, p.reason)));
  out.replaceChildren(
    h("h3", {}, "Where to distrust this map"),
    h("p", { class: "muted" }, `Checks that need no expert tree, on the encoder's vectors of the names and titles: places for a person to look, not a score (BENCHMARKS.md: they do not track agreement with experts). Entailment: ${checks.entailment_by}.`),
    h("table", { class: "scores" }, h("tbody", {}, CHECKS.map(([k, label, meaning]) =>
      h("tr", {}, h("th", {}, label), h("td", { class: "num", "data-key": k }, value(checks[k])), h("td", { class: "muted" }, meaning))))),
    suggestionList(stored, checks.suggestions || [], nodeId),
    h("h3", {}, nodeId !== "root" && here.length ? `The selected node's ${plural(here.length, "problem")} first, then the rest` : `${plural(checks.problems.length, "problem")} in ${checks.nodes} nodes`),
    checks.problems.length ? h("ul", { class: "problems" }, rows) : h("p", { class: "muted" }, "No node has a problem."));
}

// The corrections the checks suggest, the selected node's first: each accepted or rejected with
// one click.
function suggestionList(stored, suggestions, nodeId) {
  const gone = rejected(stored);
  const open = suggestions.filter((s) => !gone.has(s.id));
  const ordered = [...open.filter((s) => s.node === nodeId), ...open.filter((s) => s.node !== nodeId)];
  const row = (s) => h("li", { class: "suggestion" + (s.node === nodeId ? " current" : ""), dataset: { id: s.id, node: s.node } },
    h("span", { class: `kind ${PROBLEM_KINDS[s.kind] || ""}` }, (PROBLEM_KINDS[s.kind] || s.kind).replace("_", " ")),
    h("a", { onclick: () => setState({ node: s.node, tab: "quality" }) }, s.action),
    h("span", { class: "actions" },
      h("button", { type: "button", class: "accept", onclick: () => accept(stored, s) }, "Accept"),
      h("button", { type: "button", class: "reject", onclick: () => reject(stored, s) }, "Reject")));
  const restore = gone.size
    ? h("p", { class: "muted" }, `${plural(suggestions.length - open.length, "suggestion")} rejected in this browser. `,
      h("button", { type: "button", id: "restore-rejected", onclick: () => { localStorage.removeItem(rejectedKey(stored)); render(); } }, "Show them again"))
    : "";
  return h("div", { id: "suggestions" },
    h("h3", {}, suggestions.length ? `${plural(open.length, "suggested correction")}` : "No correction to suggest"),
    open.length ? h("ul", { class: "problems suggestions" }, ordered.map(row)) : "",
    restore);
}

// ---------- Score & export tab ----------
// The tree metrics a map is scored with against an expert survey, each with what it says.
const SCORES = [
  ["soft_f1", "Soft F1", "Harmonic mean of node soft recall and precision (TaxoBench)."],
  ["nsr", "Node soft recall", "How much of the survey's headings the map's node names cover (soft cardinality)."],
  ["nsp", "Node soft precision", "How much of the map's node names the survey's headings cover."],
  ["us_nted", "US-NTED", "Tree edit distance with soft label matching, per node of both hierarchies (lower is closer)."],
  ["us_ted", "US-TED", "The same distance before normalizing (lower is closer)."],
  ["sts", "STS", "Bloom-Eval's Semantic Tree Similarity: 1 − TED / (|A| + |B|), relabel cost 1 − cosine."],
  ["shape_consistency", "Shape consistency", "Bloom-Eval: √(depth ratio × size ratio) of the two trees."],
  ["heading_entity_recall", "Heading entity recall", "ResearchArena: entities in the survey's headings that the map's headings name."],
  ["tree_semantic_distance", "Tree semantic distance", "ResearchArena: TED where similar labels relabel for free (lower is closer)."],
  ["recall", "Paper recall", "Share of the survey's references that the map holds."],
  ["precision", "Paper precision", "Share of the map's papers that the survey cites."],
  ["ari", "ARI", "Adjusted Rand index of the leaf groups of the papers both hold."],
  ["v_measure", "V-measure", "Harmonic mean of homogeneity and completeness of those leaf groups."],
];
const EXPORTS = [["bibtex", "BibTeX"], ["ris", "RIS"], ["csv", "CSV"], ["json", "JSON (the map)"], ["markdown", "Markdown (the map)"], ["html", "HTML page (the map)"]];

async function renderScoreTab(stored, state, token) {
  if (!cache.topics) cache.topics = await getJson("/api/topics");
  if (token !== renderToken) return;
  const surveys = cache.topics.filter((t) => t.taxonomy || t.outline);
  const chosen = state.survey || closestSurvey(surveys, stored.topic)?.id || "";
  const survey = h("select", { id: "score-survey", "aria-label": "Expert survey" },
    surveys.map((t) => h("option", { value: t.id, selected: t.id === chosen }, `${t.title}${t.year ? ` (${t.year})` : ""}`)));
  const similarity = h("select", { id: "score-similarity", "aria-label": "Label similarity" },
    [["embedding", "embedding (TaxoBench)"], ["string", "string"], ["public", "public scorer's"]].map(([v, label]) =>
      h("option", { value: v, selected: v === (state.sim || "embedding") }, label)));
  const out = h("div", { id: "score-result" });
  const form = h("form", { class: "scoreform", onsubmit: (e) => { e.preventDefault(); setState({ survey: survey.value, sim: similarity.value }); } },
    h("h3", {}, "Score this map against an expert survey"),
    h("div", { class: "row" }, survey, similarity, h("button", { type: "submit", class: "primary", id: "score-it" }, "Score")));
  const format = h("select", { id: "map-export-format", "aria-label": "Export format" }, EXPORTS.map(([v, label]) => h("option", { value: v }, label)));
  const link = h("a", { id: "map-export", class: "button", href: "", download: "" }, "Download");
  // With a subtopic selected, the export can hold that subtopic alone.
  const selected = state.node && state.node !== "root" ? findNode(stored.map, state.node) : null;
  const scope = h("select", { id: "map-export-scope", "aria-label": "What to export" },
    [["", `the whole map (${plural(paperCount(stored.map), "paper")})`],
      ...(selected ? [[selected.id, `“${selected.name}” (${plural(paperCount(selected), "paper")})`]] : [])].map(([v, label]) =>
      h("option", { value: v, selected: selected && v === selected.id }, label)));
  const point = () => { link.href = `/api/maps/${stored.id}/export?format=${format.value}${scope.value ? `&node=${encodeURIComponent(scope.value)}` : ""}`; };
  format.addEventListener("change", point); scope.addEventListener("change", point); point();
  const exporter = h("div", { class: "scoreform" }, h("h3", {}, "Export"),
    h("div", { class: "row" }, scope, format, link, h("span", { class: "muted" }, "The HTML page is self-contained.")));
  $("#view").replaceChildren(form, out, exporter);
  if (!state.survey) {
    out.replaceChildren(h("p", { class: "muted" }, surveys.length ? "Choose a survey and score: the map's tree against the survey's taxonomy or outline, every metric the field uses." : "This corpus holds no survey with a taxonomy or an outline."));
    return;
  }
  const key = `${stored.id}|${state.survey}|${state.sim || "embedding"}`;
  out.replaceChildren(h("p", { class: "muted" }, "Scoring…"));
  try {
    if (!cache.scores.has(key)) cache.scores.set(key, await postJson(`/api/maps/${stored.id}/score`, { survey: state.survey, similarity: state.sim || "embedding" }));
  } catch (e) { out.replaceChildren(h("div", { class: "error" }, `Scoring failed: ${e.message}`)); return; }
  if (token !== renderToken) return;
  const report = cache.scores.get(key);
  const title = surveys.find((t) => t.id === state.survey)?.title || state.survey;
  const value = (v) => typeof v === "number" ? (Number.isInteger(v) ? String(v) : v.toFixed(3)) : "—";
  out.replaceChildren(h("table", { class: "scores" },
    h("caption", {}, `Against “${title}”: ${report.reference_nodes} survey nodes, ${report.prediction_nodes} map nodes, ${report.similarity} similarity`),
    h("tbody", {}, SCORES.filter(([k]) => k in report).map(([k, label, meaning]) =>
      h("tr", {}, h("th", {}, label), h("td", { class: "num", "data-key": k }, value(report[k])), h("td", { class: "muted" }, meaning))))));
}

/** The survey whose title shares the rarest words with the map's topic (words weighted by how few titles have them). */
function closestSurvey(surveys, topic) {
  const words = (text) => new Set((text || "").toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1));
  const titles = surveys.map((t) => words(t.title));
  const frequency = new Map();
  titles.forEach((ws) => ws.forEach((w) => frequency.set(w, (frequency.get(w) || 0) + 1)));
  const wanted = words(topic);
  let best = null, bestWeight = 0;
  surveys.forEach((t, i) => {
    let weight = 0;
    titles[i].forEach((w) => { if (wanted.has(w)) weight += Math.log((surveys.length + 1) / frequency.get(w)); });
    if (weight > bestWeight) { best = t; bestWeight = weight; }
  });
  return best;
}

// ---------- Timeline tab ----------
async function renderTimeline(stored, token) {
  if (!cache.timelines.has(stored.id)) cache.timelines.set(stored.id, await getJson(`/api/maps/${stored.id}/timeline`));
  const t = cache.timelines.get(stored.id);
  if (token !== renderToken) return;
  if (!t.years.length) { $("#view").replaceChildren(h("div", { class: "error" }, "No paper of this map has a year.")); return; }
  const width = Math.max(520, $("#view").clientWidth - 40), height = 320, left = 36, bottom = 26, top = 14;
  const totals = t.years.map((_, i) => t.themes.reduce((s, th) => s + th.counts[i], 0));
  const max = Math.max(1, ...totals);
  const bw = (width - left) / t.years.length;
  const chart = svg("svg", { width, height: height + bottom, role: "img", "aria-label": "Papers per theme per year" });
  for (let tick = 0; tick <= 4; tick++) {
    const v = Math.round((max * tick) / 4), y = height - ((height - top) * v) / max;
    chart.append(svg("line", { x1: left, x2: width, y1: y, y2: y, stroke: "#e4e7eb" }), svg("text", { x: 2, y: y + 4, "font-size": 11, fill: "#5f6b7a" }, String(v)));
  }
  t.years.forEach((year, i) => {
    let base = height;
    t.themes.forEach((th, k) => {
      const c = th.counts[i]; if (!c) return;
      const hgt = ((height - top) * c) / max; base -= hgt;
      chart.append(svg("rect", { x: left + i * bw + 1, y: base, width: Math.max(1, bw - 2), height: hgt, fill: themeColour(stored.map, k) }, svg("title", {}, `${year} · ${th.name}: ${c}`)));
    });
    if (i % Math.ceil(t.years.length / 15) === 0) chart.append(svg("text", { x: left + i * bw + bw / 2, y: height + 16, "font-size": 11, "text-anchor": "middle", fill: "#5f6b7a" }, String(year)));
  });
  const legend = h("div", { class: "legend" }, t.themes.map((th, k) => { const dot = h("i"); dot.style.background = themeColour(stored.map, k); return h("div", {}, dot, th.name); }),
    t.undated ? h("div", { class: "muted" }, `${t.undated} papers without a year`) : "");
  legend.style.position = "static";
  legend.style.maxWidth = "none";
  $("#view").replaceChildren(h("div", { class: "timeline" }, chart, legend));
}

// ---------- Path tab ----------
// A corpus without citations between its papers has no path to follow: the tab says so, and how
// to get them, instead of offering a search that can only come back empty.
async function renderPathTab(state, token) {
  if (!cache.corpus) cache.corpus = await getJson("/api/corpus");
  if (token !== renderToken) return;
  if (!cache.corpus.edges) {
    $("#view").replaceChildren(h("div", { class: "unavailable" },
      h("p", {}, `This corpus holds no citations between its ${cache.corpus.papers.toLocaleString()} papers, so there is no citation path to follow.`),
      h("p", { class: "muted" }, "To follow citations, ingest an edge list (citing_id,cited_id) or papers with their references into it, or fetch a field from OpenAlex with its citations (litnav fetch openalex).")));
    return;
  }
  const from = h("input", { id: "path-from", placeholder: "later paper (id)", value: state.from || "" });
  const to = h("input", { id: "path-to", placeholder: "classic (id)", value: state.to || "" });
  const out = h("div", { class: "hops", id: "hops" });
  const form = h("form", { class: "pathform", onsubmit: (e) => { e.preventDefault(); setState({ from: from.value.trim(), to: to.value.trim() }); } },
    "From", from, "back to", to, h("button", { type: "submit", class: "primary" }, "Find the path"),
    h("span", { class: "muted" }, "Tip: open a paper and use “path from here” / “path to here”."));
  $("#view").replaceChildren(form, out);
  if (state.from && state.to) showPath(state.from, state.to, out);
}

async function showPath(from, to, out) {
  out.replaceChildren(h("p", { class: "muted" }, "Finding the path…"));
  try {
    const answer = await getJson(`/api/path?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`);
    const r = answer.report;
    if (!answer.hops.length) {
      out.replaceChildren(h("p", {}, `No citation path within ${r.max_hops} hops` + (r.undirected_distance !== null ? ` (they are ${r.undirected_distance} hops apart ignoring direction).` : ".")));
      return;
    }
    out.replaceChildren(h("p", {}, `${answer.hops.length} hops` + (r.max_citation_path ? ` along the most-cited path (its papers are cited ${r.max_citation_path.total_in_degree} times in all); the shortest path has ${r.citation_distance}.` : ".")),
      ...answer.hops.map((hop) => h("div", { class: "hop" },
        h("a", { onclick: () => setState({ paper: hop.citing.id }) }, hop.citing.title || hop.citing.id), ` (${hop.citing.year || "?"}) cites `,
        h("a", { onclick: () => setState({ paper: hop.cited.id }) }, hop.cited.title || hop.cited.id), ` (${hop.cited.year || "?"})`,
        ...hop.sentences.map((s) => h("blockquote", {}, `“${s}”`)))));
  } catch (e) { out.replaceChildren(h("div", { class: "error" }, e.message)); }
}

// ---------- the paper panel ----------
async function renderPaper(stored, state, token) {
  const panel = $("#paper");
  if (!state.paper) { panel.className = "empty"; panel.replaceChildren("Select a paper to see its abstract, its metrics, who cites it and how, and why it is in this map."); return; }
  let data, place = null;
  try {
    [data, place] = await Promise.all([getJson(`/api/papers/${encodeURIComponent(state.paper)}`),
      getJson(`/api/maps/${stored.id}/papers/${encodeURIComponent(state.paper)}`).catch(() => null)]);
  } catch (e) { panel.className = ""; panel.replaceChildren(h("div", { class: "error" }, e.message)); return; }
  if (token !== renderToken) return;
  const p = data.paper, prof = data.profile;
  const basket = lists.get("basket"), known = lists.get("known");
  const link = (ref) => [h("a", { onclick: () => setState({ paper: ref.id }) }, ref.title || ref.id), ...(ref.retracted ? [" ", retractedBadge()] : [])];
  const metric = (name, value, why) => [h("dt", {}, name), h("dd", {}, value, h("span", { class: "why" }, why))];
  const positive = data.citers.citers.filter((c) => c.sentiment === "positive");
  const others = data.citers.citers.filter((c) => c.sentiment !== "positive");
  const citer = (c) => h("li", {}, link(c), c.year ? ` (${c.year})` : "", c.sentiment ? h("span", { class: `sent-${c.sentiment}` }, ` · ${c.sentiment}`) : "",
    c.context ? h("span", { class: "ctx" }, `“${c.context}”`) : "");
  const related = (list) => list.length ? h("ul", { class: "rel" }, list.map((r) => h("li", {}, link(r), ` · ${r.count} (cos ${fmt(r.similarity, 2)})`))) : h("p", { class: "muted" }, "None in this corpus.");
  panel.className = "";
  panel.replaceChildren(...[
    h("h2", { id: "paper-title" }, p.title, p.retracted ? [" ", retractedBadge()] : ""),
    h("div", { class: "byline" }, [p.year, p.venue, (p.authors || []).slice(0, 6).join(", ") + ((p.authors || []).length > 6 ? " et al." : "")].filter(Boolean).join(" · ")),
    h("div", { class: "actions" },
      h("button", { id: "add-basket", type: "button", onclick: () => { toggle("basket", p); render(); } }, basket[p.id] ? "Remove from basket" : "Add to basket"),
      h("button", { id: "mark-known", type: "button", onclick: () => { toggle("known", p); render(); } }, known[p.id] ? "Unmark known" : "Mark as known"),
      // No path to follow in a corpus without citations (its note says so below).
      prof.citations_note ? "" : h("button", { type: "button", onclick: () => setState({ tab: "path", from: p.id }) }, "Path from here"),
      prof.citations_note ? "" : h("button", { type: "button", onclick: () => setState({ tab: "path", to: p.id }) }, "Path to here"),
      place ? h("button", { type: "button", onclick: () => expand(stored.id, findNode(stored.map, place.node)) }, "Expand its subtopic") : ""),
    place && !place.filtered_because ? paperCorrections(stored, p.id, place.node) : "",
    p.abstract ? h("div", { class: "abstract" }, p.abstract) : h("p", { class: "muted" }, "No abstract."),
    place ? [h("h3", {}, "Why it is in this map"), h("p", {}, `Placed under ${place.path.slice(1).join(" › ")}, a subtopic whose papers’ centroid has cosine ${fmt(place.node_relevance, 2)} to the topic.`,
      place.filtered_because ? ` It sits in the Filtered branch: ${place.filtered_because}` : "",
      place.also_in.length ? ` Also a secondary member of ${place.also_in.map(([n, w]) => `${n} (${fmt(w, 2)})`).join(", ")}.` : "")] : "",
    h("h3", {}, "Metrics"),
    prof.citations_note ? h("p", { class: "muted", id: "citations-note" }, prof.citations_note) : "",
    h("dl", { id: "metrics" },
      metric("Cited by", `${prof.in_degree} in the corpus` + (p.citation_count !== undefined && p.citation_count !== null ? `, ${p.citation_count} in all` : ""), METRICS.in_degree),
      metric("References", `${prof.out_degree} in the corpus, ${prof.external_references} outside`, METRICS.out_degree),
      metric("CD index", prof.disruption.cd === null ? `undefined: ${prof.disruption_reason}` : `${fmt(prof.disruption.cd)} · ${pct(prof.disruption_percentile)}`, METRICS.cd),
      metric("Novelty", prof.novelty.p10 === null ? `undefined: ${prof.novelty_reason}` : `z₁₀ ${fmt(prof.novelty.p10, 2)} · ${pct(prof.novelty_percentile)}`, METRICS.novelty)),
    h("h3", {}, `Cited by (${data.citers_total})`),
    sentimentNote(data.citers, p.id),
    positive.length ? [h("p", { class: "muted" }, "Positive mentions first:"), h("ul", { class: "rel", id: "citers-positive" }, positive.map(citer))] : "",
    others.length ? h("ul", { class: "rel", id: "citers" }, others.slice(0, 50).map(citer)) : (positive.length ? "" : h("p", { class: "muted" }, "No paper of this corpus cites it.")),
    h("h3", {}, `References (${data.references.length})`),
    data.references.length ? h("ul", { class: "rel" }, data.references.slice(0, 50).map((r) => h("li", {}, link(r), r.year ? ` (${r.year})` : ""))) : h("p", { class: "muted" }, "None in this corpus."),
    h("h3", {}, "Co-cited with"), related(prof.co_cited),
    h("h3", {}, "Shares references with"), related(prof.coupled)].flat(2).filter((c) => c !== ""));
}

// A paper's corrections: move it to another leaf, or take it out of its subtopic.
function paperCorrections(stored, paperId, from) {
  const leaves = allNodes(stored.map).filter((n) => n.id !== "root" && n.id !== from && n.id !== "filtered" && !n.filtered && !(n.subtopics || []).length);
  const to = choice("move-paper-to", leaves.map((n) => [n.id, n.name]));
  return h("div", { class: "actions correct-paper" },
    leaves.length ? ["Move to ", to, h("button", { id: "do-move-paper", type: "button", onclick: () => correct(stored, { op: "move_paper", paper: paperId, from, to: to.value }) }, "Move")] : "",
    h("button", { id: "do-remove-paper", type: "button", onclick: () => correct(stored, { op: "remove_paper", paper: paperId, from }) }, "Remove from this subtopic"));
}

// What is known of the citers' sentiment, and — when the server has an LLM — a button that
// has it label the mentions without one (a job; the panel is drawn again when it is done).
let serverHasLlm = false;
function sentimentNote(citers, paperId) {
  const parts = [];
  if (citers.llm_labelled) parts.push(`${citers.llm_labelled} mention${citers.llm_labelled > 1 ? "s" : ""} labelled by the LLM.`);
  if (citers.without_sentiment) parts.push(`${citers.without_sentiment} mention${citers.without_sentiment > 1 ? "s have" : " has"} no sentiment.`);
  if (!parts.length) return "";
  const note = h("p", { class: "muted", id: "sentiment-note" }, parts.join(" "));
  if (citers.without_sentiment && serverHasLlm) {
    const button = h("button", { type: "button", id: "classify", onclick: () => classify(paperId, button) }, "Label them with the LLM");
    note.append(" ", button);
  }
  return note;
}

async function classify(paperId, button) {
  button.disabled = true;
  button.textContent = "Labelling…";
  try {
    const started = await postJson(`/api/papers/${encodeURIComponent(paperId)}/sentiment`, {});
    let view = started.job;
    while (!["done", "failed", "cancelled"].includes(view.state)) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      view = await getJson(`/api/jobs/${view.id}`);
      const step = view.steps[view.steps.length - 1];
      if (step && step.total) button.textContent = `Labelling… ${step.done}/${step.total}`;
    }
    if (view.state !== "done") throw new Error(view.error ? view.error.message : view.state);
    render();
  } catch (e) { button.replaceWith(h("span", { class: "error" }, `Labelling failed: ${e.message}`)); }
}

// ---------- jobs ----------
let jobStream = null;
function renderJob(jobId) {
  const box = $("#job");
  if (!jobId) { box.hidden = true; if (jobStream) { jobStream.close(); jobStream = null; } return; }
  if (jobStream && jobStream.jobId === jobId) return;
  if (jobStream) jobStream.close();
  box.hidden = false; box.className = "";
  box.replaceChildren("Starting…");
  jobStream = new EventSource(`/api/jobs/${jobId}/events`);
  jobStream.jobId = jobId;
  jobStream.addEventListener("job", (e) => showJob(JSON.parse(e.data)));
  jobStream.onerror = async () => {
    // The stream ended or broke: ask once for the state.
    try { showJob(await getJson(`/api/jobs/${jobId}`)); } catch (err) { box.className = "failed"; box.replaceChildren(`This job is gone (${err.message}).`); }
    if (jobStream) { jobStream.close(); jobStream = null; }
  };
}

function showJob(job) {
  const box = $("#job");
  const steps = h("ol", { class: "steps" }, job.steps.map((s, i) => h("li", { class: i === job.steps.length - 1 && job.state === "running" ? "current" : "" },
    s.name, s.total ? ` (${s.done} of ${s.total})` : "")));
  const head = job.state === "running" || job.state === "queued"
    ? [h("strong", {}, job.kind === "map" ? `Mapping “${job.title}”` : `Expanding ${job.title}`), ` · ${(job.elapsed_ms / 1000).toFixed(0)} s `,
      h("button", { id: "cancel-job", type: "button", onclick: () => api(`/api/jobs/${job.id}`, { method: "DELETE" }) }, "Cancel")]
    : job.state === "done" ? [h("strong", {}, "Done.")]
      : [h("strong", {}, job.state === "cancelled" ? "Cancelled." : "Failed: "), job.error ? job.error.message : ""];
  box.className = job.state === "failed" ? "failed" : "";
  box.replaceChildren(...head, steps, job.notices.length ? h("div", { class: "muted" }, job.notices.join(" · ")) : "");
  if (job.state === "done" && job.map) {
    if (jobStream) { jobStream.close(); jobStream = null; }
    const state = readState();
    const node = job.kind === "expand" ? state.expanding || state.node : "";
    setState({ map: job.map, job: "", expanding: "", node: node || "" }, true);
  } else if (job.state === "failed" || job.state === "cancelled") {
    if (jobStream) { jobStream.close(); jobStream = null; }
    box.append(" ", h("button", { type: "button", onclick: () => setState({ job: "" }) }, "Dismiss"));
  }
}

async function startMap(topic) {
  try {
    const body = $("#fetch").checked ? { topic, fetch: {} } : { topic };
    const started = await postJson("/api/maps", body);
    setState({ job: started.job.id, map: readState().map || "", node: "", paper: "" });
  } catch (e) { $("#job").hidden = false; $("#job").className = "failed"; $("#job").replaceChildren(`The map could not start: ${e.message}`); }
}

async function expand(mapId, node) {
  if (!node) return;
  try {
    const started = await postJson(`/api/maps/${mapId}/nodes/${encodeURIComponent(node.id)}/expand`, {});
    setState({ job: started.job.id, expanding: node.id, node: node.id });
  } catch (e) { $("#job").hidden = false; $("#job").className = "failed"; $("#job").replaceChildren(`The expansion could not start: ${e.message}`); }
}

// ---------- basket ----------
function basketPapers() { return Object.entries(lists.get("basket")).map(([id, title]) => ({ id, title })); }
function renderBasket() {
  const papers = basketPapers();
  $("#basket-list").replaceChildren(...(papers.length ? papers.map((p) => h("li", {}, p.title, " ", h("button", { type: "button", onclick: () => { toggle("basket", p); renderBasket(); render(); } }, "remove")))
    : [h("li", { class: "muted" }, "Empty: add papers from their panel.")]));
}
async function exportBasket() {
  const papers = basketPapers();
  if (!papers.length) throw new Error("the basket is empty");
  const format = $("#export-format").value;
  const response = await api("/api/export", { method: "POST", body: JSON.stringify({ ids: papers.map((p) => p.id), format, title: "litnav basket" }) });
  return { text: await response.text(), format, name: (response.headers.get("content-disposition") || "").split("filename=")[1]?.replaceAll('"', "") || `basket.${format}` };
}

// ---------- keyboard navigation of the tree ----------
function treeKeys(e) {
  const nodes = [...document.querySelectorAll("#tree li:not(.hidden) > .node")];
  if (!nodes.length) return;
  let i = nodes.findIndex((n) => n.classList.contains("focused"));
  if (i < 0) i = Math.max(0, nodes.findIndex((n) => n.classList.contains("selected")));
  const move = (j) => { nodes.forEach((n) => n.classList.remove("focused")); const n = nodes[Math.max(0, Math.min(nodes.length - 1, j))]; n.classList.add("focused"); n.scrollIntoView({ block: "nearest" }); };
  if (e.key === "ArrowDown") { e.preventDefault(); move(i + 1); }
  else if (e.key === "ArrowUp") { e.preventDefault(); move(i - 1); }
  else if (e.key === "Enter" || e.key === "ArrowRight") { e.preventDefault(); setState({ node: nodes[i].dataset.id }); }
  else if (e.key === "ArrowLeft") { e.preventDefault(); const id = nodes[i].dataset.id; const parent = id.includes(".") ? id.slice(0, id.lastIndexOf(".")) : ""; setState({ node: parent }); }
}

// ---------- wiring ----------
function debounce(f, ms) { let t; return (...a) => { clearTimeout(t); t = setTimeout(() => f(...a), ms); }; }

window.addEventListener("DOMContentLoaded", async () => {
  updateBasketCount();
  const state = readState();
  for (const [key, input] of [["q", "#within"], ["from_year", "#year-from"], ["to_year", "#year-to"], ["venue", "#venue"], ["minc", "#min-citations"]]) {
    if (state[key]) $(input).value = state[key];
  }
  $("#topic-form").addEventListener("submit", (e) => { e.preventDefault(); const topic = $("#topic").value.trim(); if (topic) startMap(topic); });
  document.querySelectorAll("#tabs button").forEach((b) => b.addEventListener("click", () => setState({ tab: b.dataset.tab })));
  const refilter = debounce(() => setState({ q: $("#within").value, from_year: $("#year-from").value, to_year: $("#year-to").value, venue: $("#venue").value, minc: $("#min-citations").value }, true), 250);
  ["#within", "#year-from", "#year-to", "#venue", "#min-citations"].forEach((s) => $(s).addEventListener("input", refilter));
  $("#tree").addEventListener("keydown", treeKeys);
  $("#basket-button").addEventListener("click", () => { renderBasket(); $("#basket").showModal(); });
  $("#basket-close").addEventListener("click", () => $("#basket").close());
  $("#basket-clear").addEventListener("click", () => { lists.put("basket", {}); updateBasketCount(); renderBasket(); render(); });
  $("#export-preview-button").addEventListener("click", async () => {
    try { $("#export-preview").textContent = (await exportBasket()).text; } catch (e) { $("#export-preview").textContent = `Export failed: ${e.message}`; }
  });
  $("#export-download").addEventListener("click", async () => {
    try {
      const file = await exportBasket();
      const url = URL.createObjectURL(new Blob([file.text]));
      const a = h("a", { href: url, download: file.name }); document.body.append(a); a.click(); a.remove();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
    } catch (e) { $("#export-preview").textContent = `Export failed: ${e.message}`; }
  });
  window.addEventListener("popstate", render);
  window.addEventListener("hashchange", render);
  window.addEventListener("resize", debounce(render, 200));
  try {
    const health = await getJson("/api/health");
    showCorpus(health);
    serverHasLlm = health.llm;
    offerFetch(health.network);
    if (!health.vectors.ready) followVectors();
  } catch (_) { /* shown by the first failing request */ }
  render();
});

// Fetching a field from OpenAlex before mapping it: offered when the server may open network
// connections, else greyed out with how to allow it.
function offerFetch(network) {
  $("#fetch").disabled = !network;
  $("#fetch-label").title = network
    ? "Fetch the topic's field from OpenAlex into the served corpus first (its works, the works they cite and the works citing them), then map it"
    : "This server opens no network connection: start it with `litnav serve --allow-network` to fetch a field from OpenAlex";
}

// The corpus line: its size, and while the server computes the corpus's vectors, how far it has
// come (searches meanwhile rank by BM25 alone; maps wait for the vectors).
function showCorpus(health) {
  const v = health.vectors;
  const computing = v.ready ? "" : v.total ? ` · computing vectors ${v.done.toLocaleString()} of ${v.total.toLocaleString()}` : " · loading vectors";
  $("#corpus-info").textContent = `${health.papers.toLocaleString()} papers${computing}`;
}

async function followVectors() {
  for (;;) {
    await new Promise((r) => setTimeout(r, 2000));
    let health;
    try { health = await getJson("/api/health"); } catch (_) { return; }
    showCorpus(health);
    if (health.vectors.ready || health.vectors.error) return;
  }
}
