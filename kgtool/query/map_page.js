"use strict";
// The code map as a treemap: areas hold communities, communities hold files. Each view draws
// one level and its children only, so a repository of thousands of files draws a few hundred
// boxes at most. Everything shown comes from the repository: it is written with textContent
// and attributes, never as markup.
(function () {
  const data = JSON.parse(document.getElementById("kg-data").textContent);
  const SVG = "http://www.w3.org/2000/svg";
  const W = 1000, H = 640, HEAD = 18, GAP = 2, DATA = "data";
  const FLAT_FILES = 40, MAX_FOLDERS = 24;  // a community of more files is drawn by folders
  const MAX_RESULTS = 30, MAX_ARROWS = 4, SHOWN_FILES = 200, SHOWN_SYMBOLS = 200;
  const chart = document.getElementById("chart");
  const panel = document.getElementById("panel");
  const tip = document.getElementById("tip");
  const search = document.getElementById("search");
  const results = document.getElementById("results");
  const C = data.communities;

  // -- indexes -----------------------------------------------------------------------------
  // A community's size is its files: the page states nothing it can count.
  Object.keys(C).forEach(function (cid) { C[cid].size = C[cid].files.length; });
  const areaOf = {}, areaById = {};
  data.areas.forEach(function (area, i) {
    area.hue = Math.round((i * 137.508) % 360);
    area.size = 0;
    area.communities.forEach(function (cid) { areaOf[cid] = area.id; area.size += C[cid].size; });
    areaById[area.id] = area;
  });
  const communityOf = [];
  Object.keys(C).forEach(function (cid) { C[cid].files.forEach(function (f) { communityOf[f] = cid; }); });
  const symbolsOf = {};
  data.symbols.forEach(function (s) { (symbolsOf[s[0]] = symbolsOf[s[0]] || []).push(s); });
  const outgoing = {}, incoming = {};
  data.edges.forEach(function (e) {
    (outgoing[e[0]] = outgoing[e[0]] || []).push(e);
    (incoming[e[1]] = incoming[e[1]] || []).push(e);
  });
  const areaEdges = {};
  data.edges.forEach(function (e) {
    const a = areaOf[e[0]], b = areaOf[e[1]];
    if (a && b && a !== b) areaEdges[a + "\n" + b] = (areaEdges[a + "\n" + b] || 0) + e[3];
  });
  const touched = data.diff ? data.diff.files : {};
  const touchedIn = {};
  Object.keys(touched).forEach(function (f) {
    const cid = communityOf[f];
    if (!cid) return;
    touchedIn[cid] = (touchedIn[cid] || 0) + 1;
    touchedIn[areaOf[cid]] = (touchedIn[areaOf[cid]] || 0) + 1;
  });
  const basename = function (path) { return path.slice(path.lastIndexOf("/") + 1); };

  // -- small DOM helpers -------------------------------------------------------------------
  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function svg(tag, attrs, parent) {
    const node = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (parent) parent.appendChild(node);
    return node;
  }
  function link(text, hash) {
    const a = el("a", { href: "#" + hash }, text);
    return a;
  }
  function files(n) { return n === 1 ? "1 file" : n + " files"; }
  function title(cid) { return cid + " · " + C[cid].name; }
  function markText(cid) { return C[cid].mark ? " (" + C[cid].mark + ")" : ""; }
  function fitTail(text, width) {  // a path keeps its end, the part that tells folders apart
    const room = Math.floor(width / 6.4);
    if (room < 3) return "";
    return text.length <= room ? text : "…" + text.slice(text.length - room + 1);
  }
  function fit(text, width) {
    const room = Math.floor(width / 6.4);
    if (room < 3) return "";
    return text.length <= room ? text : text.slice(0, room - 1) + "…";
  }

  // -- the squarified treemap (Bruls, Huizing, van Wijk): boxes near square, largest first --
  function squarify(items, x, y, w, h) {
    const out = [];
    const drawn = items.filter(function (it) { return it.value > 0; });
    const total = drawn.reduce(function (s, it) { return s + it.value; }, 0);
    if (!(total > 0) || w <= 0 || h <= 0) return out;
    const scale = (w * h) / total;
    let rest = drawn.map(function (it) { return { item: it, area: it.value * scale }; });
    while (rest.length) {
      const short = Math.min(w, h);
      let row = [], best = Infinity;
      for (let i = 0; i < rest.length; i++) {
        const trial = row.concat([rest[i]]);
        const ratio = worst(trial, short);
        if (ratio > best) break;
        best = ratio;
        row = trial;
      }
      const rowArea = row.reduce(function (s, c) { return s + c.area; }, 0);
      const thick = rowArea / short;
      let offset = 0;
      row.forEach(function (c) {
        const length = c.area / thick;
        if (w >= h) out.push({ item: c.item, x: x, y: y + offset, w: thick, h: length });
        else out.push({ item: c.item, x: x + offset, y: y, w: length, h: thick });
        offset += length;
      });
      if (w >= h) { x += thick; w -= thick; } else { y += thick; h -= thick; }
      rest = rest.slice(row.length);
    }
    return out;
  }
  function worst(row, short) {
    let sum = 0, max = 0, min = Infinity;
    row.forEach(function (c) { sum += c.area; max = Math.max(max, c.area); min = Math.min(min, c.area); });
    const s2 = sum * sum, w2 = short * short;
    return Math.max((w2 * max) / s2, s2 / (w2 * min));
  }

  // -- drawing -----------------------------------------------------------------------------
  let centres = {};  // what the arrows join: a drawn box's ID -> its centre
  let arrows = null;

  function clear() {
    while (chart.firstChild) chart.removeChild(chart.firstChild);
    const defs = svg("defs", {}, chart);
    const marker = svg("marker", { id: "head", viewBox: "0 0 10 10", refX: "9", refY: "5",
      markerWidth: "7", markerHeight: "7", orient: "auto-start-reverse" }, defs);
    svg("path", { d: "M0,0 L10,5 L0,10 z", fill: "#0969da" }, marker);
    centres = {};
    arrows = null;
  }

  function tile(parent, box, attrs, fill, label, sub) {
    const g = svg("g", attrs, parent);
    svg("rect", { class: "tile", x: box.x.toFixed(1), y: box.y.toFixed(1),
      width: Math.max(box.w - 1, 0.5).toFixed(1), height: Math.max(box.h - 1, 0.5).toFixed(1),
      fill: fill }, g);
    if (box.h >= 14) {
      const text = fit(label, box.w - 6);
      if (text) svg("text", { x: (box.x + 4).toFixed(1), y: (box.y + 13).toFixed(1) }, g).textContent = text;
      if (sub && box.h >= 28) {
        const more = fit(sub, box.w - 6);
        if (more) svg("text", { x: (box.x + 4).toFixed(1), y: (box.y + 26).toFixed(1), fill: "#59636e" }, g).textContent = more;
      }
    }
    return g;
  }

  function communityClass(cid) {
    let cls = "community";
    if (C[cid].mark) cls += " " + C[cid].mark;
    if (data.diff) cls += touchedIn[cid] ? " hit" : " faded";
    return cls;
  }

  function communityTiles(parent, cids, x, y, w, h, hue, lightness) {
    const boxes = squarify(cids.map(function (cid) { return { id: cid, value: C[cid].size }; }), x, y, w, h);
    boxes.forEach(function (box, i) {
      const cid = box.item.id;
      const fill = touchedIn[cid] ? "hsl(18,78%," + (62 + (i % 2) * 6) + "%)" : "hsl(" + hue + ",45%," + (lightness + (i % 3) * 4) + "%)";
      const sub = files(C[cid].size) + (touchedIn[cid] ? ", " + touchedIn[cid] + " touched" : "");
      const g = tile(parent, box, { class: communityClass(cid), "data-id": cid }, fill,
        C[cid].name + markText(cid), sub);
      centres[cid] = [box.x + box.w / 2, box.y + box.h / 2];
      hover(g, function () { return communityTip(cid); }, function () { arrowsFor(cid); });
      g.addEventListener("click", function () { go("community=" + cid); });
    });
  }

  function drawOverview() {
    clear();
    // Docs and data (fixtures, above all) can outnumber the code many times over: their box
    // is drawn at most a quarter of the code's, and says its true count.
    const code = data.areas.reduce(function (s, a) { return s + (a.id === DATA ? 0 : a.size); }, 0);
    const boxes = squarify(data.areas.map(function (a) {
      return { id: a.id, value: a.id === DATA && code ? Math.min(a.size, code / 4) : a.size };
    }), 0, 0, W, H);
    boxes.forEach(function (box) {
      const area = areaById[box.item.id];
      const g = svg("g", { class: "area-box" + (data.diff && !touchedIn[area.id] ? " faded" : ""), "data-area": area.id }, chart);
      const roomy = box.h > HEAD * 2 && box.w > 40;
      if (roomy) {
        const head = svg("g", { class: "head" }, g);
        svg("rect", { class: "headband", x: box.x + 1, y: box.y + 1, width: Math.max(box.w - 2, 0), height: HEAD,
          fill: "hsl(" + area.hue + ",35%,88%)" }, head);
        const label = area.name + " · " + files(area.size) + (touchedIn[area.id] ? " · " + touchedIn[area.id] + " touched" : "");
        svg("text", { x: box.x + 5, y: box.y + 14 }, head).textContent = fit(label, box.w - 10);
        head.addEventListener("click", function () { go("area=" + area.id); });
        hover(head, function () { return areaTip(area); }, function () { areaArrows(area.id); });
        centres["area:" + area.id] = [box.x + box.w / 2, box.y + HEAD / 2 + 1];
      }
      const top = roomy ? HEAD + GAP : GAP;
      communityTiles(g, area.communities, box.x + GAP, box.y + top, box.w - 2 * GAP, box.h - top - GAP, area.hue, 74);
      svg("rect", { class: "area", x: box.x + 0.5, y: box.y + 0.5, width: Math.max(box.w - 1, 0), height: Math.max(box.h - 1, 0) }, g);
    });
  }

  function drawArea(area) {
    clear();
    communityTiles(chart, area.communities, 0, 0, W, H, area.hue, 72);
  }

  function folderOf(path) {
    const at = path.lastIndexOf("/");
    return at < 0 ? "." : path.slice(0, at);
  }
  // Files by folder below depth ``from``, at the deepest level that still gives at most
  // MAX_FOLDERS folders; null when they do not split in two there.
  function folderGroups(list, from) {
    const depth = list.reduce(function (d, f) { return Math.max(d, folderOf(data.paths[f]).split("/").length); }, 0);
    let best = null;
    for (let d = from + 1; d <= depth; d++) {
      const groups = {};
      list.forEach(function (f) {
        const key = folderOf(data.paths[f]).split("/").slice(0, d).join("/");
        (groups[key] = groups[key] || []).push(f);
      });
      const count = Object.keys(groups).length;
      if (count > MAX_FOLDERS) break;
      if (count > 1) best = { groups: groups, depth: d };
    }
    return best;
  }
  function fileWeight(f) { return Math.sqrt(Math.max(data.lines[f], 1)); }

  // A community of many files is drawn folder by folder, a box per folder with its files (or
  // its own folders, when it holds many) inside.
  function drawCommunity(cid, selected) {
    clear();
    const hue = areaById[areaOf[cid]] ? areaById[areaOf[cid]].hue : 210;
    drawFiles(chart, C[cid].files, { x: 0, y: 0, w: W, h: H }, 0, "", hue, cid, selected);
  }

  // ``within``: the enclosing folder's box's path, left out of its folders' names.
  function drawFiles(parent, list, box, from, within, hue, cid, selected) {
    const split = list.length > FLAT_FILES && box.w > 80 && box.h > 60 ? folderGroups(list, from) : null;
    if (split === null) {
      fileTiles(parent, list, box.x, box.y, box.w, box.h, hue, cid, selected);
      return;
    }
    const groups = split.groups;
    const items = Object.keys(groups).map(function (folder) {
      return { id: folder, value: groups[folder].reduce(function (s, f) { return s + fileWeight(f); }, 0) };
    }).sort(function (a, b) { return b.value - a.value || (a.id < b.id ? -1 : 1); });
    squarify(items, box.x, box.y, box.w, box.h).forEach(function (inner) {
      const folder = inner.item.id;
      const g = svg("g", { class: "folder", "data-folder": folder }, parent);
      const roomy = inner.h > HEAD * 2 && inner.w > 40;
      if (roomy) {
        const head = svg("g", { class: "head" }, g);
        svg("rect", { class: "band", x: inner.x + 1, y: inner.y + 1, width: Math.max(inner.w - 2, 0), height: HEAD,
          fill: "hsl(" + hue + ",25%,90%)" }, head);
        const count = " · " + files(groups[folder].length);
        const name = fitTail(folder.slice(within ? within.length + 1 : 0) + "/", inner.w - 10 - count.length * 6.4);
        svg("text", { x: inner.x + 5, y: inner.y + 14 }, head).textContent = name ? name + count : fit(count.slice(3), inner.w - 10);
      }
      const top = roomy ? HEAD + GAP : GAP;
      drawFiles(g, groups[folder], { x: inner.x + GAP, y: inner.y + top, w: inner.w - 2 * GAP, h: inner.h - top - GAP },
        split.depth, folder, hue, cid, selected);
      svg("rect", { class: "area", x: inner.x + 0.5, y: inner.y + 0.5, width: Math.max(inner.w - 1, 0), height: Math.max(inner.h - 1, 0) }, g);
    });
  }

  function fileTiles(parent, list, x, y, w, h, hue, cid, selected) {
    const items = list.map(function (f) { return { id: f, value: fileWeight(f) }; });
    squarify(items, x, y, w, h).forEach(function (box, i) {
      const f = box.item.id;
      const change = touched[f];
      const fill = change ? "hsl(18,78%," + (62 + (i % 2) * 6) + "%)" : "hsl(" + hue + ",40%," + (78 + (i % 3) * 4) + "%)";
      let cls = "file";
      if (f === selected) cls += " selected";
      if (data.diff) cls += change ? " hit" : " faded";
      const g = tile(parent, box, { class: cls, "data-file": String(f) }, fill, basename(data.paths[f]),
        data.lines[f] + " lines" + (change ? ", " + change : ""));
      hover(g, function () { return fileTip(f); }, null);
      g.addEventListener("click", function () { go("community=" + cid + "&file=" + f); });
    });
  }

  // -- arrows: the strongest typed edges of the box under the pointer ----------------------
  function drawArrows(from, list) {
    if (arrows) arrows.remove();
    arrows = svg("g", { class: "arrows" }, chart);
    list.forEach(function (item) {
      const a = centres[item[0]], b = centres[item[1]];
      if (!a || !b) return;
      svg("line", { class: "arrow", x1: a[0].toFixed(1), y1: a[1].toFixed(1), x2: b[0].toFixed(1), y2: b[1].toFixed(1) }, arrows);
      const t = svg("text", { class: "arrow", x: ((a[0] + b[0]) / 2).toFixed(1), y: ((a[1] + b[1]) / 2 - 3).toFixed(1) }, arrows);
      t.textContent = item[2];
    });
  }
  function arrowsFor(cid) {
    const list = [];
    (outgoing[cid] || []).filter(function (e) { return centres[e[1]]; }).slice(0, MAX_ARROWS)
      .forEach(function (e) { list.push([cid, e[1], e[2]]); });
    (incoming[cid] || []).filter(function (e) { return centres[e[0]]; }).slice(0, MAX_ARROWS)
      .forEach(function (e) { list.push([e[0], cid, e[2]]); });
    drawArrows(cid, list);
  }
  function areaLinks(aid, out) {
    return Object.keys(areaEdges).map(function (key) { return key.split("\n").concat([areaEdges[key]]); })
      .filter(function (r) { return out ? r[0] === aid : r[1] === aid; })
      .sort(function (p, q) { return q[2] - p[2] || (p[0] + p[1] < q[0] + q[1] ? -1 : 1); });
  }
  function areaArrows(aid) {
    const list = areaLinks(aid, true).slice(0, MAX_ARROWS).map(function (r) { return ["area:" + r[0], "area:" + r[1], r[2] + " edges"]; });
    drawArrows(aid, list);
  }

  // -- tooltips ----------------------------------------------------------------------------
  function hover(node, content, enter) {
    node.addEventListener("mouseenter", function () {
      while (tip.firstChild) tip.removeChild(tip.firstChild);
      content().forEach(function (part) { tip.appendChild(part); });
      if (enter) enter();
    });
    node.addEventListener("mousemove", function (event) {
      tip.hidden = false;
      const x = Math.min(event.clientX + 14, window.innerWidth - 430);
      tip.style.left = Math.max(x, 4) + "px";
      tip.style.top = (event.clientY + 14) + "px";
    });
    node.addEventListener("mouseleave", function () {
      tip.hidden = true;
      if (arrows) { arrows.remove(); arrows = null; }
    });
  }
  function communityTip(cid) {
    const c = C[cid];
    const parts = [el("b", {}, title(cid) + markText(cid))];
    if (c.summary) parts.push(el("div", {}, c.summary));
    parts.push(el("div", {}, files(c.size) + (touchedIn[cid] ? ", " + touchedIn[cid] + " touched by the change" : "")));
    (outgoing[cid] || []).slice(0, 3).forEach(function (e) { parts.push(el("div", {}, "→ " + title(e[1]) + ": " + e[2])); });
    (incoming[cid] || []).slice(0, 3).forEach(function (e) { parts.push(el("div", {}, "← " + title(e[0]) + ": " + e[2])); });
    return parts;
  }
  function areaTip(area) {
    const parts = [el("b", {}, area.name), el("div", {}, files(area.size) + " in " + area.communities.length + " communities")];
    if (area.package) parts.push(el("div", {}, "package " + area.package));
    return parts;
  }
  function fileTip(f) {
    const parts = [el("b", {}, data.paths[f]), el("div", {}, data.lines[f] + " lines, " + (symbolsOf[f] || []).length + " symbols")];
    if (touched[f]) parts.push(el("div", { class: "touched" }, touched[f] + " since " + data.diff.base));
    return parts;
  }

  // -- the side panel ----------------------------------------------------------------------
  function section(heading) {
    panel.appendChild(el("h3", {}, heading));
    const list = el("ul");
    panel.appendChild(list);
    return list;
  }
  function item(list, parts) {
    const li = el("li");
    parts.forEach(function (p) { li.appendChild(typeof p === "string" ? document.createTextNode(p) : p); });
    list.appendChild(li);
    return li;
  }
  function clearPanel() { while (panel.firstChild) panel.removeChild(panel.firstChild); }

  function diffSummary() {
    if (!data.diff) return;
    const d = data.diff;
    const count = Object.keys(touched).length;
    const where = Object.keys(C).filter(function (cid) { return touchedIn[cid]; });
    const since = d.commit.indexOf(d.base) === 0 || d.base.indexOf(d.commit) === 0 ? d.commit : d.base + " (" + d.commit + ")";
    panel.appendChild(el("p", { class: "touched" }, "Since " + since + ": " + files(count) +
      " touched in " + where.length + (where.length === 1 ? " community" : " communities") +
      (d.gone.length ? "; " + files(d.gone.length) + " deleted" : "") +
      (d.outside.length ? "; " + files(d.outside.length) + " outside the map" : "") + "."));
    if (where.length) {
      const list = section("Touched communities");
      where.sort(function (a, b) { return touchedIn[b] - touchedIn[a] || C[b].size - C[a].size || (a < b ? -1 : 1); })
        .forEach(function (cid) { item(list, [link(title(cid) + markText(cid), "community=" + cid), " · " + touchedIn[cid] + " of " + files(C[cid].size)]); });
    }
    if (d.gone.length) {
      const list = section("Deleted");
      d.gone.slice(0, SHOWN_FILES).forEach(function (path) { item(list, [el("code", {}, path)]); });
    }
  }

  function overviewPanel() {
    clearPanel();
    const total = data.paths.length;
    panel.appendChild(el("h2", {}, data.title));
    panel.appendChild(el("p", {}, files(total) + " in " + Object.keys(C).length + " communities. Click a box to open it; hover it for its strongest dependencies."));
    diffSummary();
    const list = section("Areas");
    data.areas.forEach(function (area) {
      item(list, [link(area.name, "area=" + area.id), " · " + files(area.size) + ", " + area.communities.length + " communities"]);
    });
  }

  function areaPanel(area) {
    clearPanel();
    panel.appendChild(el("h2", {}, area.name));
    panel.appendChild(el("p", {}, files(area.size) + " in " + area.communities.length + " communities" + (area.package ? ", package " + area.package : "") + "."));
    diffSummary();
    [["Depends on", true], ["Used by", false]].forEach(function (pair) {
      const rows = areaLinks(area.id, pair[1]);
      if (!rows.length) return;
      const list = section(pair[0]);
      rows.forEach(function (r) {
        const other = areaById[pair[1] ? r[1] : r[0]];
        item(list, [link(other.name, "area=" + other.id), " · " + r[2] + " edges"]);
      });
    });
    const list = section("Communities");
    area.communities.forEach(function (cid) {
      item(list, [link(title(cid), "community=" + cid), el("span", { class: "mark" }, markText(cid)), " · " + files(C[cid].size)]);
    });
  }

  function communityPanel(cid, selected) {
    clearPanel();
    const c = C[cid];
    const h2 = el("h2", {}, title(cid));
    if (c.mark) h2.appendChild(el("span", { class: "mark" }, " (" + c.mark + ")"));
    panel.appendChild(h2);
    if (c.why) panel.appendChild(el("p", { class: "why" }, c.why));
    if (c.summary) panel.appendChild(el("p", {}, c.summary));
    const area = areaById[areaOf[cid]];
    const about = el("p", {}, files(c.size) + (area ? " · area " : ""));
    if (area) about.appendChild(link(area.name, "area=" + area.id));
    if (touchedIn[cid]) about.appendChild(el("span", { class: "touched" }, " · " + touchedIn[cid] + " touched since " + data.diff.base));
    panel.appendChild(about);
    if (selected !== null && communityOf[selected] === cid) filePanel(selected);
    [["Depends on", outgoing[cid] || [], 1], ["Used by", incoming[cid] || [], 0]].forEach(function (spec) {
      if (!spec[1].length) return;
      const list = section(spec[0]);
      spec[1].forEach(function (e) {
        const other = e[spec[2]];
        item(list, [link(title(other), "community=" + other), el("span", { class: "mark" }, markText(other)), ": " + e[2]]);
      });
    });
    if (c.main.length) {
      const list = section("Main files (most used from other files)");
      c.main.forEach(function (path) { item(list, [el("code", {}, path)]); });
    }
    const list = section("Files");
    c.files.slice(0, SHOWN_FILES).forEach(function (f) {
      const li = item(list, [link(data.paths[f], "community=" + cid + "&file=" + f)]);
      if (touched[f]) li.appendChild(el("span", { class: "touched" }, " " + touched[f]));
    });
    if (c.files.length > SHOWN_FILES) item(list, [(c.files.length - SHOWN_FILES) + " more: find them with the search box"]);
  }

  function filePanel(f) {
    const box = el("div", { id: "file" });
    box.appendChild(el("h3", {}, "File"));
    box.appendChild(el("p", {}, "")).appendChild(el("code", {}, data.paths[f]));
    box.appendChild(el("p", {}, data.lines[f] + " lines" + (touched[f] ? ", " + touched[f] + " since " + data.diff.base : "")));
    const symbols = symbolsOf[f] || [];
    if (symbols.length) {
      const list = el("ul");
      symbols.slice(0, SHOWN_SYMBOLS).forEach(function (s) { item(list, [el("code", {}, s[1]), " :" + s[2]]); });
      if (symbols.length > SHOWN_SYMBOLS) item(list, [(symbols.length - SHOWN_SYMBOLS) + " more"]);
      box.appendChild(list);
    }
    panel.appendChild(box);
  }

  // -- where you are: the address after '#' ------------------------------------------------
  function crumbs(parts) {
    const nav = document.getElementById("crumbs");
    while (nav.firstChild) nav.removeChild(nav.firstChild);
    parts.forEach(function (p, i) {
      if (i) nav.appendChild(document.createTextNode(" › "));
      nav.appendChild(p[1] === null ? el("span", {}, p[0]) : link(p[0], p[1]));
    });
  }
  function go(hash) {
    if (location.hash.slice(1) === hash) render();
    else location.hash = hash;
  }
  function render() {
    tip.hidden = true;
    const params = new URLSearchParams(location.hash.slice(1));
    const cid = params.get("community");
    const aid = params.get("area");
    const single = data.areas.length === 1 ? data.areas[0] : null;
    const top = ["map", single ? "area=" + single.id : ""];
    if (cid && C[cid]) {
      const file = params.get("file");
      const selected = file !== null && communityOf[Number(file)] === cid ? Number(file) : null;
      const area = areaById[areaOf[cid]];
      crumbs(area && !single ? [top, [area.name, "area=" + area.id], [title(cid), null]] : [top, [title(cid), null]]);
      drawCommunity(cid, selected);
      communityPanel(cid, selected);
      if (selected !== null) {
        const shown = document.getElementById("file");
        if (shown && shown.scrollIntoView) shown.scrollIntoView({ block: "nearest" });
      }
    } else if ((aid && areaById[aid]) || single) {
      const area = areaById[aid] || single;
      crumbs(single ? [["map", null]] : [top, [area.name, null]]);
      drawArea(area);
      areaPanel(area);
    } else {
      crumbs([["map", null]]);
      drawOverview();
      overviewPanel();
      if (!data.areas.length) panel.appendChild(el("p", {}, "The map holds no community: run `kgtool update` in a repository with tracked files."));
    }
    document.body.setAttribute("data-view", cid && C[cid] ? "community" : (aid && areaById[aid]) || single ? "area" : "overview");
    document.body.setAttribute("data-drawn", location.hash);  // what is drawn, for a test to wait on
  }

  // -- search: communities by name, files by path, symbols by name ------------------------
  let found = [], active = -1;
  function find(query) {
    const q = query.trim().toLowerCase();
    const hits = [];
    if (q.length < 2) return hits;
    Object.keys(C).forEach(function (cid) {
      const name = C[cid].name.toLowerCase();
      if (cid === q || name.indexOf(q) >= 0) hits.push([cid === q ? 0 : name.indexOf(q) === 0 ? 1 : 2, title(cid), "community", "community=" + cid]);
    });
    data.paths.forEach(function (path, f) {
      const at = path.toLowerCase().indexOf(q);
      if (at < 0) return;
      const base = basename(path).toLowerCase();
      hits.push([base.indexOf(q) === 0 ? 3 : base.indexOf(q) > 0 ? 4 : 5, path, "in " + title(communityOf[f]), "community=" + communityOf[f] + "&file=" + f]);
    });
    data.symbols.forEach(function (s) {
      const name = s[1].toLowerCase();
      const leaf = name.slice(name.lastIndexOf(".") + 1);
      if (name.indexOf(q) < 0) return;
      hits.push([leaf.indexOf(q) === 0 ? 3 : 6, s[1], data.paths[s[0]] + ":" + s[2], "community=" + communityOf[s[0]] + "&file=" + s[0]]);
    });
    hits.sort(function (a, b) { return a[0] - b[0] || a[1].length - b[1].length || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0); });
    return hits.slice(0, MAX_RESULTS);
  }
  function showResults() {
    while (results.firstChild) results.removeChild(results.firstChild);
    found.forEach(function (hit, i) {
      const li = el("li", { "data-target": hit[3], class: i === active ? "active" : "" }, hit[1]);
      li.appendChild(el("small", {}, hit[2]));
      li.addEventListener("mousedown", function (event) { event.preventDefault(); choose(i); });
      results.appendChild(li);
    });
    results.hidden = !found.length;
  }
  function choose(i) {
    if (!found[i]) return;
    results.hidden = true;
    search.blur();
    go(found[i][3]);
  }
  search.addEventListener("input", function () { found = find(search.value); active = found.length ? 0 : -1; showResults(); });
  search.addEventListener("keydown", function (event) {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      if (!found.length) return;
      active = (active + (event.key === "ArrowDown" ? 1 : found.length - 1)) % found.length;
      showResults();
    } else if (event.key === "Enter") {
      choose(Math.max(active, 0));
    } else if (event.key === "Escape") {
      results.hidden = true;
    }
  });
  search.addEventListener("blur", function () { results.hidden = true; });

  // -- start -------------------------------------------------------------------------------
  document.getElementById("title").textContent = data.title;
  if (data.notice) {
    const notice = document.getElementById("notice");
    notice.textContent = data.notice;
    notice.hidden = false;
  }
  const legend = document.getElementById("legend");
  legend.appendChild(el("span", {}, "Box size: files (docs and data at most a quarter of the code; a file by its lines)."));
  legend.appendChild(el("span", {}, "Dashed border: unlabelled, a name kgtool made from paths. Dotted: drifted, the label was written for members that have changed."));
  if (data.diff) {
    const key = el("span");
    key.appendChild(el("i", { style: "background:hsl(18,78%,62%)" }));
    key.appendChild(document.createTextNode("touched since " + data.diff.base + "; the rest is faded"));
    legend.appendChild(key);
  }
  window.addEventListener("hashchange", render);
  render();
  // When the first view was drawn, for bench/map_page.py (milliseconds since navigation).
  window.kgtoolReadyAt = performance.now();
  document.body.setAttribute("data-ready", "1");
})();
