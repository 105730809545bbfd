// hall.js keeps the server-rendered Hall page live. It holds the state the
// stream describes (presences by presence_id, collisions by collision_id),
// applies each JSON diff to it, and re-renders the strip, drill, banner,
// roster, collision list and brain picker in place, with the same markup
// and data-testid names the server's templates use (views/*.templ).
//
// It prefers the SSE stream (a snapshot, then diffs). When EventSource is
// missing, the stream errors or closes, or it stays silent past two
// heartbeats and a check shows it missed a change, the page polls
// GET /api/presences with If-None-Match, says so in the status line, and
// tries the stream again until it answers.
//
// Every agent-supplied string reaches the page through textContent or
// setAttribute, never innerHTML. Plain ES5-level script, no dependencies.
(function () {
  'use strict';

  var root = document.getElementById('hall');
  if (!root) {
    return;
  }

  var DRILL_CAP = 6;
  var WS_SHOWN = 3;

  function intAttr(name, def) {
    var n = parseInt(root.getAttribute(name), 10);
    return n > 0 ? n : def;
  }

  var cfg = {
    brain: root.getAttribute('data-brain') || '',
    stream: root.getAttribute('data-stream') || '',
    poll: root.getAttribute('data-poll') || '/api/presences',
    silenceMs: intAttr('data-silence-ms', 30000),
    pollMs: intAttr('data-poll-ms', 3000),
    retryMs: intAttr('data-retry-ms', 10000)
  };

  // The server's clock, estimated: ages are measured against served_at_ms,
  // not against a client clock that may be minutes off.
  var skew = 0;
  var servedAt = parseInt(root.getAttribute('data-served-at-ms'), 10);
  if (servedAt > 0) {
    skew = servedAt - Date.now();
  }
  function serverNow() {
    return Date.now() + skew;
  }

  function byTestId(id, scope) {
    return (scope || root).querySelector('[data-testid="' + id + '"]');
  }

  // ---- formatting: the same rules as views/model.go ----

  function plural(n, one, many) {
    return n === 1 ? '1 ' + one : n + ' ' + many;
  }
  function scopeLabel() {
    return cfg.brain ? 'this brain' : 'all brains';
  }
  function collisionWarning(n) {
    return n ? '\u26a0 ' + plural(n, 'collision', 'collisions') : '';
  }
  function shortPath(p) {
    var trimmed = p.replace(/\/+$/, '');
    if (!trimmed) {
      return p;
    }
    var segs = trimmed.replace(/^\/+/, '').split('/');
    if (segs.length <= 2) {
      return p;
    }
    return '\u2026/' + segs.slice(-2).join('/');
  }
  function shortWhere(p, brain) {
    var parent = brain.replace(/\/+$/, '');
    var i = parent.lastIndexOf('/');
    if (i > 0) {
      parent = parent.slice(0, i) + '/';
      var t = p.replace(/\/+$/, '');
      if (t.indexOf(parent) === 0 && t.length > parent.length) {
        var segs = t.slice(parent.length).split('/');
        return segs.length > 3 ? '\u2026/' + segs.slice(-2).join('/') : segs.join('/');
      }
    }
    return shortPath(p);
  }
  function baseName(p) {
    var trimmed = p.replace(/\/+$/, '');
    var i = trimmed.lastIndexOf('/');
    if (i >= 0 && i < trimmed.length - 1) {
      return trimmed.slice(i + 1);
    }
    return trimmed || p;
  }
  function where(p) {
    return p.worktree || p.caller_root || p.brain;
  }
  function pad2(n) {
    return n < 10 ? '0' + n : '' + n;
  }
  function age(ms) {
    var s = Math.floor(Math.max(0, ms) / 1000);
    if (s < 60) {
      return s + 's';
    }
    if (s < 3600) {
      return Math.floor(s / 60) + 'm';
    }
    if (s < 86400) {
      return Math.floor(s / 3600) + 'h ' + pad2(Math.floor(s / 60) % 60) + 'm';
    }
    return Math.floor(s / 86400) + 'd ' + (Math.floor(s / 3600) % 24) + 'h';
  }
  function iso(ms) {
    return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  function theme(t) {
    return t ? t : '(no theme)';
  }
  function or(s) {
    return s ? s : '\u2014';
  }
  function clauseLabel(c) {
    return {
      same_caller_root: 'same caller root',
      same_worktree: 'same worktree',
      working_set_overlap: 'working sets overlap',
      touched_overlap: 'both changed these files'
    }[c] || c;
  }
  function mutationText(p) {
    if (p.mutation_level === 'observed') {
      return 'editing';
    }
    if (p.mutation_level === 'declared') {
      return 'intends: ' + ((p.mutation && p.mutation.declared_intent) || '');
    }
    return '\u2014';
  }
  function mutationTitle(p) {
    if (p.mutation_level === 'observed') {
      var t = 'a mutating tool ran (observed by the Hall)';
      if (p.mutation && p.mutation.declared_intent) {
        t += '; declared: ' + p.mutation.declared_intent;
      }
      return t;
    }
    if (p.mutation_level === 'declared') {
      return 'declared by the agent, not observed';
    }
    return 'no mutation signal';
  }

  // ---- DOM building: text only, never markup ----

  // el builds an element; attrs are set with setAttribute, children are
  // nodes or strings (text nodes). Null attributes and children are skipped.
  function el(tag, attrs, children) {
    var n = document.createElement(tag);
    var k;
    for (k in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, k) && attrs[k] !== null && attrs[k] !== undefined && attrs[k] !== false) {
        n.setAttribute(k, attrs[k] === true ? '' : String(attrs[k]));
      }
    }
    (children || []).forEach(function (c) {
      if (c === null || c === undefined) {
        return;
      }
      n.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
    });
    return n;
  }
  // pathNodes is a path as text with a line-break opportunity (<wbr>) after
  // each slash, as views.PathText writes it.
  function pathNodes(p) {
    var out = [];
    var segs = p.match(/[^\/]*\/|[^\/]+$/g) || [];
    segs.forEach(function (seg, i) {
      if (i > 0) {
        out.push(document.createElement('wbr'));
      }
      out.push(document.createTextNode(seg));
    });
    return out;
  }
  function setChildren(node, kids) {
    while (node.firstChild) {
      node.removeChild(node.firstChild);
    }
    kids.forEach(function (k) {
      node.appendChild(typeof k === 'string' ? document.createTextNode(k) : k);
    });
  }
  function timeEl(ms, attrs, suffix) {
    var a = attrs || {};
    a['data-ms'] = ms;
    a.datetime = iso(ms);
    if (suffix) {
      a['data-suffix'] = suffix;
    }
    return el('time', a, [age(serverNow() - ms) + (suffix || '')]);
  }
  function mutSpan(p, testid) {
    return el('span', {
      'class': 'mut mut-' + p.mutation_level,
      'data-testid': testid || null,
      'data-level': p.mutation_level,
      title: mutationTitle(p)
    }, [mutationText(p)]);
  }

  // ---- state ----

  var state = null; // {presences: {id: p}, collisions: {id: c}, error: ''}
  var shownCollisions = {}; // collision ids on the page, for announcing new ones
  Array.prototype.forEach.call(root.querySelectorAll('[data-testid="collision"]'), function (n) {
    shownCollisions[n.getAttribute('data-collision-id')] = true;
  });

  function values(obj) {
    return Object.keys(obj).map(function (k) {
      return obj[k];
    });
  }
  function presences() {
    return values(state.presences).sort(function (a, b) {
      if (a.last_beat_ms !== b.last_beat_ms) {
        return b.last_beat_ms - a.last_beat_ms;
      }
      if (a.agent_id !== b.agent_id) {
        return a.agent_id < b.agent_id ? -1 : 1;
      }
      return a.presence_id < b.presence_id ? -1 : a.presence_id > b.presence_id ? 1 : 0;
    });
  }
  function collisions() {
    return values(state.collisions).sort(function (a, b) {
      if (a.brain !== b.brain) {
        return a.brain < b.brain ? -1 : 1;
      }
      return a.collision_id < b.collision_id ? -1 : a.collision_id > b.collision_id ? 1 : 0;
    });
  }
  function collidingIds(cs) {
    var out = {};
    cs.forEach(function (c) {
      out[c.a.presence_id] = true;
      out[c.b.presence_id] = true;
    });
    return out;
  }

  // adopt replaces the state with a whole response (a stream snapshot or a
  // poll), then renders.
  function adopt(resp) {
    if (resp.served_at_ms > 0) {
      skew = resp.served_at_ms - Date.now();
    }
    var next = { presences: {}, collisions: {}, error: errorLine(resp) };
    (resp.presences || []).forEach(function (p) {
      next.presences[p.presence_id] = p;
    });
    (resp.collisions || []).forEach(function (c) {
      next.collisions[c.collision_id] = c;
    });
    state = next;
    render();
  }

  // applyDiff folds one stream diff into the state. A collision opened
  // under an id the state holds replaces it (the stream sends a changed
  // collision again, whole).
  function applyDiff(d) {
    (d.joins || []).concat(d.updates || []).forEach(function (p) {
      state.presences[p.presence_id] = p;
    });
    (d.leaves || []).forEach(function (id) {
      delete state.presences[id];
    });
    (d.collisions_closed || []).forEach(function (c) {
      delete state.collisions[c.collision_id];
    });
    (d.collisions_opened || []).forEach(function (c) {
      state.collisions[c.collision_id] = c;
    });
    // A diff states the store's condition after it: absent means readable.
    state.error = errorLine(d);
    render();
  }

  // errorLine says why the roster was dropped ('' when it was not), as
  // views.ErrorLine does.
  function errorLine(x) {
    if (!x.error) {
      return '';
    }
    var label = x.error === 'store_unreachable' ? 'Store unreachable: ' : 'Registry unreadable: ';
    return label + (x.detail || x.error);
  }

  function fingerprint(ps, cs) {
    var p = ps.map(function (x) {
      return JSON.stringify(x);
    }).sort();
    var c = cs.map(function (x) {
      return JSON.stringify(x);
    }).sort();
    return p.join('\n') + '\n--\n' + c.join('\n');
  }

  // ---- rendering ----

  function render() {
    var ps = presences();
    var cs = collisions();
    var colliding = collidingIds(cs);
    renderError();
    renderStrip(ps, cs, colliding);
    renderBanner(cs);
    renderRoster(ps, colliding);
    renderCollisions(cs);
    renderPicker(ps, cs);
    document.title = plural(ps.length, 'agent', 'agents') + ' \u00b7 ' + scopeLabel() +
      (cs.length ? ' \u00b7 ' + collisionWarning(cs.length) : '') + ' \u2014 Hall';
    announceNew(cs);
  }

  function renderError() {
    var n = byTestId('registry-error');
    if (!state.error) {
      if (n) {
        n.parentNode.removeChild(n);
      }
      return;
    }
    if (!n) {
      n = el('p', { 'class': 'registry-error', 'data-testid': 'registry-error' }, []);
      root.insertBefore(n, byTestId('strip'));
    }
    n.textContent = state.error;
  }

  function renderStrip(ps, cs, colliding) {
    var strip = byTestId('strip');
    strip.classList.toggle('has-collision', cs.length > 0);
    var scope = el('span', { 'class': 'scope', 'data-testid': 'scope-label' }, [scopeLabel()]);
    if (cs.length) {
      scope.appendChild(document.createTextNode(' '));
      scope.appendChild(el('span', { 'class': 'sep', 'aria-hidden': 'true' }, ['\u00b7']));
      scope.appendChild(document.createTextNode(' '));
      scope.appendChild(el('span', { 'class': 'collision-warning', 'data-testid': 'collision-warning' }, [collisionWarning(cs.length)]));
    }
    setChildren(byTestId('root-line'), [
      el('span', { 'class': 'live-count', 'data-testid': 'live-count' }, [plural(ps.length, 'agent', 'agents')]),
      ' ',
      el('span', { 'class': 'sep', 'aria-hidden': 'true' }, ['\u00b7']),
      ' ',
      scope
    ]);

    var rank = function (p) {
      if (colliding[p.presence_id]) {
        return 0;
      }
      return { observed: 1, declared: 2 }[p.mutation_level] || 3;
    };
    var rows = ps.slice().sort(function (a, b) {
      var d = rank(a) - rank(b);
      if (d) {
        return d;
      }
      if (a.first_seen_ms !== b.first_seen_ms) {
        return a.first_seen_ms - b.first_seen_ms;
      }
      if (a.agent_id !== b.agent_id) {
        return a.agent_id < b.agent_id ? -1 : 1;
      }
      return a.presence_id < b.presence_id ? -1 : 1;
    });
    var more = Math.max(0, rows.length - DRILL_CAP);
    rows = rows.slice(0, DRILL_CAP);
    setChildren(byTestId('drill'), rows.map(function (p) {
      var w = where(p);
      return el('li', {
        'class': 'drill-row' + (colliding[p.presence_id] ? ' colliding' : ''),
        'data-testid': 'drill-row',
        'data-presence-id': p.presence_id
      }, [
        el('span', { 'class': 'agent', 'data-testid': 'drill-agent' }, [p.agent_id]),
        el('span', { 'class': 'theme', 'data-testid': 'drill-theme' }, [theme(p.theme)]),
        el('span', { 'class': 'where', 'data-testid': 'drill-where', title: w }, [shortWhere(w, p.brain)]),
        timeEl(p.first_seen_ms, { 'class': 'age', 'data-testid': 'drill-age', title: 'time since first seen' }),
        mutSpan(p, 'drill-mutating')
      ].concat(p.touched && p.touched.length ? [el('span', {
        'class': 'touched', 'data-testid': 'drill-touched', title: touchedPaths(p).join('\n')
      }, [touchedText(p)])] : []));
    }));
    var moreEl = byTestId('drill-more');
    moreEl.hidden = more === 0;
    moreEl.textContent = '+' + more + ' more in the roster below';
    byTestId('drill-empty').hidden = rows.length > 0;
  }

  function renderBanner(cs) {
    var b = byTestId('collision-banner');
    b.hidden = cs.length === 0;
    var t = '';
    if (cs.length) {
      t = cs[0].a.agent_id + ' and ' + cs[0].b.agent_id + ' are both mutating in ' + cs[0].place;
      if (cs.length > 1) {
        t += ' (and ' + plural(cs.length - 1, 'more collision', 'more collisions') + ')';
      }
    }
    byTestId('banner-text').textContent = t;
  }

  function cell(label, testid, attrs, kids) {
    var a = attrs || {};
    a['data-label'] = label;
    a['data-testid'] = testid;
    return el('td', a, kids);
  }

  function workingSet(ws) {
    if (!ws || !ws.length) {
      return ['\u2014'];
    }
    var out = [el('ul', { 'class': 'paths' }, ws.slice(0, WS_SHOWN).map(function (w) {
      return el('li', {}, pathNodes(w));
    }))];
    if (ws.length > WS_SHOWN) {
      out.push(el('span', { 'class': 'more' }, ['+' + (ws.length - WS_SHOWN) + ' more']));
    }
    return out;
  }

  // What the Hall saw a presence change, newest first; the drill's summary.
  function touchedPaths(p) {
    return (p.touched || []).map(function (t) { return t.path; });
  }

  function touchedText(p) {
    var more = p.touched.length - 1 + (p.touched_omitted || 0);
    return 'changed ' + baseName(p.touched[0].path) + (more > 0 ? ' +' + more : '');
  }

  // Each subagent right after its session, as views.RosterRows orders them.
  function rosterRows(ps) {
    var live = new Map(), kids = new Map(), out = [];
    ps.forEach(function (p) { live.set(p.presence_id, true); });
    var isKid = function (p) {
      return p.parent_presence_id && p.parent_presence_id !== p.presence_id && live.has(p.parent_presence_id);
    };
    ps.forEach(function (p) {
      if (isKid(p)) {
        if (!kids.has(p.parent_presence_id)) { kids.set(p.parent_presence_id, []); }
        kids.get(p.parent_presence_id).push(p);
      }
    });
    ps.forEach(function (p) {
      if (!isKid(p)) { out.push(p); out.push.apply(out, kids.get(p.presence_id) || []); }
    });
    return out;
  }

  function renderRoster(ps, colliding) {
    byTestId('roster-count').textContent = String(ps.length);
    setChildren(byTestId('roster-body'), rosterRows(ps).map(function (p) {
      var w = where(p);
      return el('tr', {
        'class': 'roster-row' + (colliding[p.presence_id] ? ' colliding' : '') + (p.parent_presence_id ? ' subagent' : ''),
        'data-testid': 'roster-row',
        'data-presence-id': p.presence_id,
        'data-parent-presence-id': p.parent_presence_id || ''
      }, [
        cell('Agent', 'roster-agent', { 'class': 'agent' }, (p.parent_presence_id ?
          [el('span', { 'class': 'subagent-mark', title: 'a subagent of the session above' }, ['\u21b3 '])] : []).concat([p.agent_id])),
        cell('Kind', 'roster-kind', {}, [or(p.kind)]),
        cell('Theme', 'roster-theme', { 'class': 'theme' }, [theme(p.theme)]),
        cell('Brain', 'roster-brain', { title: p.brain }, [baseName(p.brain)]),
        cell('Where', 'roster-where', { 'class': 'path', title: w }, pathNodes(w)),
        cell('Working set', 'roster-working-set', { 'class': 'path' }, workingSet(p.working_set)),
        cell('Changed', 'roster-touched', { 'class': 'path', title: 'files the Hall saw this agent\'s tools change, newest first' }, workingSet(touchedPaths(p))),
        cell('Task', 'roster-task', {}, [or(p.task_ref)]),
        cell('First seen', 'roster-first-seen', {}, [timeEl(p.first_seen_ms, {}, ' ago')]),
        cell('Last beat', 'roster-last-beat', {}, [timeEl(p.last_beat_ms, {}, ' ago')]),
        cell('Mutation', 'roster-mutation', {}, [mutSpan(p)])
      ]);
    }));
    byTestId('roster-empty').hidden = ps.length > 0;
  }

  function renderCollisions(cs) {
    byTestId('collision-count').textContent = String(cs.length);
    setChildren(byTestId('collisions'), cs.map(function (c) {
      var paths = c.paths && c.paths.length ?
        [el('ul', { 'class': 'paths' }, c.paths.map(function (p) {
          return el('li', {}, pathNodes(p));
        }))] : ['\u2014'];
      return el('li', { 'class': 'collision', 'data-testid': 'collision', 'data-collision-id': c.collision_id }, [
        el('p', { 'class': 'pair' }, [
          el('span', { 'class': 'agent', 'data-testid': 'collision-a', title: theme(c.a.theme) }, [c.a.agent_id]),
          el('span', { 'class': 'and' }, [' and ']),
          el('span', { 'class': 'agent', 'data-testid': 'collision-b', title: theme(c.b.theme) }, [c.b.agent_id])
        ]),
        el('dl', {}, [
          el('dt', {}, ['Place']),
          el('dd', { 'class': 'path', 'data-testid': 'collision-place' }, pathNodes(c.place)),
          el('dt', {}, ['Brain']),
          el('dd', { 'class': 'path', 'data-testid': 'collision-brain' }, pathNodes(c.brain)),
          el('dt', {}, ['Why']),
          el('dd', { 'data-testid': 'collision-clauses' }, [(c.clauses || []).map(clauseLabel).join(', ')]),
          el('dt', {}, ['Paths']),
          el('dd', { 'class': 'path', 'data-testid': 'collision-paths' }, paths)
        ])
      ]);
    }));
    byTestId('collisions-empty').hidden = cs.length > 0;
  }

  // The picker: owner-wide, the state holds every brain, so every count is
  // recomputed (and a new brain gets its entry). On one brain, only that
  // brain's counts are known live; the total moves by the same amount.
  var picker = document.querySelector('[data-testid="brain-list"]');
  var pickerBase = null;
  function pickerCounts(item) {
    var live = byTestId('brain-live', item);
    var col = byTestId('brain-collisions', item);
    return {
      live: live ? parseInt(live.textContent, 10) || 0 : 0,
      collisions: col ? parseInt(col.textContent.replace(/[^0-9]/g, ''), 10) || 0 : 0
    };
  }
  function pickerItem(brain) {
    var items = picker ? picker.querySelectorAll('[data-testid="brain-item"]') : [];
    for (var i = 0; i < items.length; i++) {
      if (items[i].getAttribute('data-brain') === brain) {
        return items[i];
      }
    }
    return null;
  }
  function setPickerCounts(item, live, cols) {
    byTestId('brain-live', item).textContent = String(live);
    var col = byTestId('brain-collisions', item);
    if (cols && !col) {
      col = el('span', { 'class': 'brain-collisions', 'data-testid': 'brain-collisions', title: 'live collisions' }, []);
      item.appendChild(col);
    }
    if (col && !cols) {
      item.removeChild(col);
    } else if (col) {
      col.textContent = '\u26a0 ' + cols;
    }
    item.classList.toggle('has-collision', cols > 0);
  }
  function newPickerItem(brain) {
    return el('li', { 'class': 'brain', 'data-testid': 'brain-item', 'data-brain': brain }, [
      el('a', { href: '/?brain=' + encodeURIComponent(brain), title: brain, 'data-testid': 'brain-link' }, [baseName(brain)]),
      el('span', { 'class': 'brain-live', 'data-testid': 'brain-live', title: 'live presences' }, ['0'])
    ]);
  }
  function renderPicker(ps, cs) {
    if (!picker) {
      return;
    }
    var all = pickerItem('');
    if (cfg.brain) {
      var mine = pickerItem(cfg.brain);
      if (!mine || !all) {
        return;
      }
      if (!pickerBase) {
        var a = pickerCounts(all);
        var m = pickerCounts(mine);
        pickerBase = { live: a.live - m.live, collisions: a.collisions - m.collisions };
      }
      setPickerCounts(mine, ps.length, cs.length);
      setPickerCounts(all, pickerBase.live + ps.length, pickerBase.collisions + cs.length);
      return;
    }
    var counts = {};
    Array.prototype.forEach.call(picker.querySelectorAll('[data-testid="brain-item"]'), function (it) {
      var b = it.getAttribute('data-brain');
      if (b) {
        counts[b] = { live: 0, collisions: 0 };
      }
    });
    ps.forEach(function (p) {
      (counts[p.brain] = counts[p.brain] || { live: 0, collisions: 0 }).live++;
    });
    cs.forEach(function (c) {
      (counts[c.brain] = counts[c.brain] || { live: 0, collisions: 0 }).collisions++;
    });
    Object.keys(counts).sort().forEach(function (b) {
      var it = pickerItem(b);
      if (!it) {
        it = newPickerItem(b);
        picker.appendChild(it);
      }
      // Keep the sorted order: appending in sorted order moves each in turn.
      picker.appendChild(it);
      setPickerCounts(it, counts[b].live, counts[b].collisions);
    });
    if (all) {
      setPickerCounts(all, ps.length, cs.length);
    }
  }

  // ---- announcing new collisions ----

  var announcer = byTestId('announcer');
  function announceNew(cs) {
    var fresh = [];
    var now = {};
    cs.forEach(function (c) {
      now[c.collision_id] = true;
      if (!shownCollisions[c.collision_id]) {
        fresh.push(c);
      }
    });
    shownCollisions = now;
    if (!fresh.length) {
      return;
    }
    var c = fresh[0];
    var msg = 'New collision: ' + c.a.agent_id + ' and ' + c.b.agent_id + ' are both mutating in ' + c.place +
      ' (' + (c.clauses || []).map(clauseLabel).join(', ') + ').';
    if (fresh.length > 1) {
      msg += ' And ' + plural(fresh.length - 1, 'more new collision.', 'more new collisions.');
    }
    announcer.textContent = msg;
    var banner = byTestId('collision-banner');
    banner.classList.remove('flash');
    void banner.offsetWidth; // restart the animation
    banner.classList.add('flash');
  }

  // ---- ticking ages ----

  function tick() {
    var now = serverNow();
    Array.prototype.forEach.call(root.querySelectorAll('time[data-ms]'), function (t) {
      var ms = parseInt(t.getAttribute('data-ms'), 10);
      if (ms > 0) {
        t.textContent = age(now - ms) + (t.getAttribute('data-suffix') || '');
      }
    });
  }

  // ---- live: stream first, polling when it fails ----

  var statusEl = byTestId('status');
  var mode = '';
  var STATUS = {
    connecting: 'connecting\u2026',
    live: 'live',
    polling: 'polling (stream unavailable)'
  };
  // setMode writes the status line only when it changes: it is a polite
  // live region, and a rewrite of the same words would be read out again.
  function setMode(m, note) {
    var text = STATUS[m] + (note ? ' \u00b7 ' + note : '');
    mode = m;
    if (statusEl.getAttribute('data-state') !== m || statusEl.textContent !== text) {
      statusEl.setAttribute('data-state', m);
      statusEl.textContent = text;
    }
  }

  var es = null;       // the EventSource being used or tried
  var esLive = false;  // it delivered its snapshot
  var esOpenedAt = 0;
  var lastEventAt = 0;
  var checking = false;
  var retryTimer = 0;
  var polling = false;
  var pollGen = 0; // a new polling run ignores answers to the one before
  var pollTimer = 0;
  var etag = '';

  function parse(s) {
    try {
      return JSON.parse(s);
    } catch (e) {
      return null;
    }
  }

  function connect() {
    retryTimer = 0;
    if (!window.EventSource || !cfg.stream) {
      startPolling();
      return;
    }
    closeStream();
    var src = new EventSource(cfg.stream);
    es = src;
    esOpenedAt = Date.now();
    var seen = function () {
      if (src === es) {
        lastEventAt = Date.now();
      }
    };
    src.addEventListener('snapshot', function (ev) {
      if (src !== es) {
        return;
      }
      var data = parse(ev.data);
      if (!data) {
        streamFailed();
        return;
      }
      seen();
      esLive = true;
      stopPolling();
      adopt(data);
      setMode('live');
    });
    src.addEventListener('diff', function (ev) {
      if (src !== es) {
        return;
      }
      seen();
      if (!esLive || !state) {
        return;
      }
      var d = parse(ev.data);
      if (!d) {
        streamFailed();
        return;
      }
      applyDiff(d);
    });
    src.addEventListener('heartbeat', seen);
    src.addEventListener('ping', seen);
    src.onmessage = seen;
    src.onerror = function () {
      if (src === es) {
        streamFailed();
      }
    };
  }

  function closeStream() {
    if (es) {
      es.close();
    }
    es = null;
    esLive = false;
  }

  // streamFailed leaves the stream for polling and schedules another try.
  // The browser's own reconnect is not used: it would retry silently while
  // the page showed a roster nobody updates.
  function streamFailed() {
    closeStream();
    startPolling();
    if (!retryTimer) {
      retryTimer = setTimeout(connect, cfg.retryMs);
    }
  }

  // watch notices a stream gone quiet. SSE heartbeats are comments, which
  // EventSource does not surface, so a quiet stream is checked against the
  // contract: if the served roster matches the page, the Hall is simply
  // quiet; if it differs twice in a row with no event between (a diff may
  // be on its way), the stream is stuck behind something that buffers it,
  // and the page polls instead. A stream that never delivered its snapshot
  // within the silence threshold is given up at once.
  function watch() {
    if (!es || checking) {
      return;
    }
    var now = Date.now();
    if (!esLive) {
      if (now - esOpenedAt > cfg.silenceMs) {
        streamFailed();
      }
      return;
    }
    if (now - lastEventAt > cfg.silenceMs) {
      verify(es, 0);
    }
  }

  function verify(src, attempt) {
    checking = true;
    var before = lastEventAt;
    var done = function () {
      checking = false;
    };
    fetchContract(false).then(function (res) {
      if (src !== es || !esLive || lastEventAt !== before) {
        done(); // replaced, or the stream spoke meanwhile
        return;
      }
      var same = !res.data || fingerprint(res.data.presences || [], res.data.collisions || []) ===
          fingerprint(values(state.presences), values(state.collisions));
      if (same) {
        lastEventAt = Date.now();
        done();
      } else if (attempt === 0) {
        setTimeout(function () {
          verify(src, 1);
        }, Math.min(1000, Math.floor(cfg.silenceMs / 2)));
      } else {
        done();
        streamFailed();
        adopt(res.data);
      }
    }, function () {
      done();
      if (src === es) {
        lastEventAt = Date.now(); // the Hall is unreachable: the stream will say so
      }
    });
  }

  function emptyResponse() {
    return { presences: [], collisions: [], served_at_ms: 0 };
  }

  // fetchContract GETs the contract; conditional sends the last ETag so an
  // unchanged roster costs a 304. A 404 (a brain the Hall no longer knows)
  // reads as empty, as the contract says.
  function fetchContract(conditional) {
    var headers = { Accept: 'application/json' };
    if (conditional && etag) {
      headers['If-None-Match'] = etag;
    }
    return fetch(cfg.poll, { headers: headers, cache: 'no-store', credentials: 'same-origin' }).then(function (r) {
      if (r.status === 200) {
        return r.json().then(function (d) {
          return { status: 200, data: d, etag: r.headers.get('ETag') || '' };
        });
      }
      if (r.status === 404) {
        return { status: 404, data: emptyResponse(), etag: '' };
      }
      return { status: r.status, data: null, etag: '' };
    });
  }

  function startPolling() {
    if (mode !== 'polling') {
      setMode('polling');
    }
    if (!polling) {
      polling = true;
      pollGen++;
      pollOnce(pollGen);
    }
  }

  function stopPolling() {
    polling = false;
    clearTimeout(pollTimer);
    pollTimer = 0;
    etag = '';
  }

  function pollOnce(gen) {
    pollTimer = 0;
    var current = function () {
      return polling && gen === pollGen;
    };
    var next = function () {
      if (current()) {
        pollTimer = setTimeout(function () {
          pollOnce(gen);
        }, cfg.pollMs);
      }
    };
    fetchContract(true).then(function (res) {
      if (!current()) {
        return;
      }
      if (res.status === 304) {
        setMode('polling');
      } else if (res.data) {
        etag = res.etag;
        adopt(res.data);
        setMode('polling');
      } else {
        setMode('polling', 'last poll failed (' + res.status + ')');
      }
      next();
    }, function () {
      if (current()) {
        setMode('polling', 'Hall unreachable');
      }
      next();
    });
  }

  setInterval(tick, 1000);
  setInterval(watch, Math.min(1000, Math.max(100, Math.floor(cfg.silenceMs / 4))));
  if (window.EventSource && cfg.stream) {
    setMode('connecting');
    connect();
  } else {
    startPolling();
  }
})();
