// hall.js keeps the server-rendered Hall page live; the server is its only
// renderer. On each diff the SSE stream announces (or each poll when it
// cannot stream) the page fetches its regions as HTML (GET /fragments/hall,
// the page's own templates) and swaps each region that changed, keeping
// focus, scroll and the status line; one fetch in flight, later diffs
// coalesced into one more. A stream that errors, closes, or stays silent
// past two heartbeats while a check shows it missed a change gives way to
// polling with If-None-Match, and is tried again until it answers. Ages
// tick against the server's clock; title and favicon follow the strip; new
// collisions are announced to screen readers and, opted in by a click,
// notified while the tab is hidden. Fetched HTML is parsed in an inert
// <template> and comes from escaping templates: no agent string becomes
// markup here. Plain script, no dependencies, no build step.
(function () {
  'use strict';

  var root = document.getElementById('hall');
  if (!root) { return; }

  function intAttr(name, def) {
    var n = parseInt(root.getAttribute(name), 10);
    return n > 0 ? n : def;
  }

  var cfg = {
    stream: root.getAttribute('data-stream') || '',
    fragment: root.getAttribute('data-fragment') || '/fragments/hall',
    silenceMs: intAttr('data-silence-ms', 30000),
    pollMs: intAttr('data-poll-ms', 3000),
    retryMs: intAttr('data-retry-ms', 10000),
    icon: root.getAttribute('data-icon'),
    iconAlert: root.getAttribute('data-icon-alert')
  };

  // Ages count on the server's clock, not a client clock minutes off.
  var skew = intAttr('data-served-at-ms', 0) ? intAttr('data-served-at-ms', 0) - Date.now() : 0;

  function tid(id, scope) { return (scope || document).querySelector('[data-testid="' + id + '"]'); }
  function all(sel, scope) { return Array.prototype.slice.call((scope || document).querySelectorAll(sel)); }

  // age formats as contract.Age does (internal/contract/testdata/age.json,
  // held to this function by TestBrowserAgeFormat): 42s, 5m, 3h 05m, 2d 4h.
  function age(ms) {
    var s = Math.floor(Math.max(0, ms) / 1000);
    var m = Math.floor(s / 60) % 60;
    return s < 60 ? s + 's' : s < 3600 ? Math.floor(s / 60) + 'm' :
      s < 86400 ? Math.floor(s / 3600) + 'h ' + (m < 10 ? '0' : '') + m + 'm' :
      Math.floor(s / 86400) + 'd ' + (Math.floor(s / 3600) % 24) + 'h';
  }

  function tick() {
    var now = Date.now() + skew;
    all('time[data-ms]').forEach(function (t) {
      var ms = parseInt(t.getAttribute('data-ms'), 10);
      if (ms > 0) {
        var text = age(now - ms) + (t.getAttribute('data-suffix') || '');
        if (t.textContent !== text) { t.textContent = text; }
      }
    });
  }

  // ---- swapping regions ----
  var collisionIds = idsOf(document);

  // A card gathers a place's collisions (data-pairs): a new pair is news
  // even at a place already on the page.
  function idsOf(scope) {
    var out = {};
    all('[data-testid="collision"]', scope).forEach(function (c) {
      (c.getAttribute('data-pairs') || '').split(' ').forEach(function (id) { if (id) { out[id] = c; } });
    });
    return out;
  }

  function key(e) {
    return e.nodeType === 1 && (e.getAttribute('data-presence-id') || e.getAttribute('data-collision-id') ||
      e.getAttribute('data-event-id') || e.getAttribute('data-brain'));
  }

  // morph makes the live element o match n, changing only what differs.
  // Elements stay (and with them focus, scroll positions and open details);
  // keyed children (rows, cards, events, brains) are matched by key and
  // moved rather than rebuilt; the script's own parts (data-keep) and the
  // text of ticking ages are left alone.
  function morph(o, n) {
    if (o.hasAttribute('data-keep')) { return; }
    Array.prototype.slice.call(o.attributes).forEach(function (a) {
      if (!n.hasAttribute(a.name) && a.name !== 'open') { o.removeAttribute(a.name); }
    });
    Array.prototype.slice.call(n.attributes).forEach(function (a) {
      if (o.getAttribute(a.name) !== a.value) { o.setAttribute(a.name, a.value); }
    });
    if (o.tagName === 'TIME') { return; }
    var byKey = {};
    Array.prototype.forEach.call(o.childNodes, function (c) {
      if (key(c)) { byKey[key(c)] = c; }
    });
    var at = o.firstChild;
    Array.prototype.slice.call(n.childNodes).forEach(function (c) {
      var k = key(c);
      var m = k ? byKey[k] : at && !key(at) && at.nodeName === c.nodeName ? at : null;
      if (!m || m.nodeName !== c.nodeName) {
        o.insertBefore(c, at);
        return;
      }
      delete byKey[k];
      if (m.nodeType !== 1) {
        if (m.nodeValue !== c.nodeValue) { m.nodeValue = c.nodeValue; }
      } else if (!m.hasAttribute('data-h') || m.getAttribute('data-h') !== c.getAttribute('data-h')) {
        morph(m, c); // a row whose signature (data-h) is the same shows the same
      }
      if (m === at) { at = at.nextSibling; } else { o.insertBefore(m, at); }
    });
    while (at) { var gone = at; at = at.nextSibling; o.removeChild(gone); }
  }

  // swap puts the fetched regions (those that changed) in place of the
  // page's, then brings the rest of the page in step.
  function swap(html) {
    var tpl = document.createElement('template');
    tpl.innerHTML = html;
    Array.prototype.slice.call(tpl.content.children).forEach(function (next) {
      var old = document.querySelector('[data-region="' + next.getAttribute('data-region') + '"]');
      if (old) { morph(old, next); }
    });
    tick();
    var strip = tid('strip');
    document.title = strip.getAttribute('data-title') || document.title;
    var icon = document.querySelector('link[rel="icon"]');
    var want = strip.getAttribute('data-collisions') !== '0' ? cfg.iconAlert : cfg.icon;
    if (icon && want && icon.getAttribute('href') !== want) { icon.setAttribute('href', want); }
    announceNew();
  }

  function announceNew() {
    var now = idsOf(document);
    var fresh = Object.keys(now).filter(function (id) { return !collisionIds[id]; });
    collisionIds = now;
    if (!fresh.length) { return; }
    var c = now[fresh[0]];
    var text = function (id) { return (tid(id, c) || {}).textContent || ''; };
    var msg = 'New collision: ' + text('collision-agents') + ', mutating in ' +
      text('collision-place') + ' (' + text('collision-clauses') + ').';
    if (fresh.length > 1) {
      msg += ' And ' + (fresh.length - 1) + ' more new collision' + (fresh.length > 2 ? 's.' : '.');
    }
    tid('announcer').textContent = msg;
    var banner = tid('collision-banner');
    banner.classList.remove('flash');
    void banner.offsetWidth; // restart the animation
    banner.classList.add('flash');
    notify(msg);
  }

  // ---- notify me: opt-in, asked only on a click ----
  var notifyBtn = tid('notify');
  var KEY = 'hall-notify';
  function notifying() {
    return window.Notification && Notification.permission === 'granted' && localStorage.getItem(KEY) === '1';
  }
  function showNotifyState() {
    notifyBtn.setAttribute('aria-pressed', String(!!notifying()));
    notifyBtn.textContent = notifying() ? 'notifying of new collisions' :
      Notification.permission === 'denied' ? 'notifications blocked' : 'notify me';
  }
  function notify(msg) {
    if (notifying() && document.hidden) {
      var n = new Notification('Hall: new collision', { body: msg, tag: 'hall-collision' });
      notifyBtn.setAttribute('data-notified', String(parseInt(notifyBtn.getAttribute('data-notified') || '0', 10) + 1));
      n.onclick = function () { window.focus(); };
    }
  }
  if (notifyBtn && window.Notification) {
    notifyBtn.hidden = false;
    showNotifyState();
    notifyBtn.addEventListener('click', function () {
      if (notifying()) {
        localStorage.removeItem(KEY);
        showNotifyState();
        return;
      }
      Promise.resolve(Notification.requestPermission()).then(function (p) {
        if (p === 'granted') { localStorage.setItem(KEY, '1'); }
        showNotifyState();
      });
    });
  }

  // ---- fetching: one in flight, the rest coalesced ----
  var etag = '';
  var inFlight = false;
  var again = false;
  var waiting = []; // arrival times of diffs not yet on the page
  var STATUS = { connecting: 'connecting\u2026', live: 'live', polling: 'polling (stream unavailable)' };
  var statusEl = tid('status');
  var mode = '';

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

  // fetchRegions GETs the regions; conditional on the last ETag (a 304),
  // and on the regions' and rows' hashes: the Hall sends only the regions
  // that changed, and leaves out the rows the page has (morph keeps them).
  function fetchRegions(conditional) {
    var headers = { Accept: 'text/html' };
    if (conditional && etag) { headers['If-None-Match'] = etag; }
    if (conditional) {
      headers['X-Hall-Have'] = all('[data-region][data-hash], tr[data-h]').map(function (r) { return r.getAttribute('data-hash') || r.getAttribute('data-h'); }).join(' ');
    }
    return fetch(cfg.fragment, { headers: headers, cache: 'no-store', credentials: 'same-origin' }).then(function (r) {
      if (r.status !== 200) { return { status: r.status }; }
      return r.text().then(function (html) {
        return { status: 200, html: html, etag: r.headers.get('ETag') || '' };
      });
    });
  }

  // refresh brings the page up to date; during a fetch it asks for one more.
  function refresh() {
    if (inFlight) {
      again = true;
      return Promise.resolve();
    }
    inFlight = true;
    again = false;
    var covered = waiting;
    waiting = [];
    var done = function () {
      inFlight = false;
      if (again) { refresh(); }
    };
    return fetchRegions(true).then(function (res) {
      if (res.status === 200) {
        etag = res.etag;
        swap(res.html);
      }
      var end = performance.now();
      covered.forEach(function (t) {
        performance.measure('hall-update', { start: t, end: end });
      });
      if (performance.getEntriesByName('hall-update').length > 10000) { performance.clearMeasures('hall-update'); }
      done();
      return res;
    }, function (err) {
      done();
      throw err;
    });
  }

  // ---- live: the stream first, polling when it fails ----
  var es = null; // the EventSource being used or tried
  var esLive = false; // it delivered its snapshot
  var esOpenedAt = 0;
  var lastEventAt = 0;
  var checking = false;
  var retryTimer = 0;
  var polling = false;
  var pollGen = 0; // a new polling run ignores answers to the one before
  var pollTimer = 0;

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
    var on = function (name, f) {
      src.addEventListener(name, function (ev) {
        if (src === es) {
          lastEventAt = Date.now();
          f(ev);
        }
      });
    };
    on('snapshot', function () {
      esLive = true;
      stopPolling();
      setMode('live');
      refresh();
    });
    on('diff', function () {
      if (esLive) {
        waiting.push(performance.now());
        refresh();
      }
    });
    src.onerror = function () {
      if (src === es) { streamFailed(); }
    };
  }

  function closeStream() {
    if (es) { es.close(); }
    es = null;
    esLive = false;
  }

  // streamFailed polls and schedules another try (not the browser's silent
  // reconnect, which would leave a roster nobody updates on show).
  function streamFailed() {
    closeStream();
    startPolling();
    if (!retryTimer) { retryTimer = setTimeout(connect, cfg.retryMs); }
  }

  // watch notices a quiet stream (heartbeats are comments, unseen by
  // EventSource) and checks it: a fetched roster signature equal to the
  // page's means a quiet Hall; one that differs twice with no event
  // between means a stream stuck behind a buffer, and the page polls. A
  // stream with no snapshot within the threshold is given up at once.
  function watch() {
    if (!es || checking) { return; }
    if (!esLive) {
      if (Date.now() - esOpenedAt > cfg.silenceMs) { streamFailed(); }
      return;
    }
    if (Date.now() - lastEventAt > cfg.silenceMs) { verify(es, 0); }
  }

  function verify(src, attempt) {
    checking = true;
    var before = lastEventAt;
    fetchRegions(false).then(function (res) {
      if (src !== es || !esLive || lastEventAt !== before || res.status !== 200) {
        checking = false; // replaced, the stream spoke meanwhile, or the Hall did not answer
        lastEventAt = Date.now();
        return;
      }
      var tpl = document.createElement('template');
      tpl.innerHTML = res.html;
      var sig = tpl.content.querySelector('[data-region="strip"]').getAttribute('data-sig');
      if (sig === tid('strip').getAttribute('data-sig')) {
        lastEventAt = Date.now();
        checking = false;
      } else if (attempt === 0) {
        setTimeout(function () { verify(src, 1); }, Math.min(1000, Math.floor(cfg.silenceMs / 2)));
      } else {
        checking = false;
        streamFailed();
        etag = res.etag;
        swap(res.html);
      }
    }, function () {
      checking = false;
      lastEventAt = Date.now(); // the Hall is unreachable: the stream will say so
    });
  }

  function startPolling() {
    if (mode !== 'polling') { setMode('polling'); }
    if (!polling) {
      polling = true;
      pollOnce(++pollGen);
    }
  }

  function stopPolling() {
    polling = false;
    clearTimeout(pollTimer);
  }

  function pollOnce(gen) {
    var current = function () { return polling && gen === pollGen; };
    var next = function () {
      if (current()) { pollTimer = setTimeout(function () { pollOnce(gen); }, cfg.pollMs); }
    };
    refresh().then(function (res) {
      if (current()) {
        setMode('polling', !res || res.status === 200 || res.status === 304 ? '' : 'last poll failed (' + res.status + ')');
      }
      next();
    }, function () {
      if (current()) { setMode('polling', 'Hall unreachable'); }
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
