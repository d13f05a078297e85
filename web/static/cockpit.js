// gobpm cockpit: live regions and the diagram. This script drives each
// page's live region (see LiveTrigger in web/templates); bpmn-js draws the
// diagram once and the overlays are redrawn from the region's
// #diagram-state after every refresh.
(function () {
  'use strict';

  // Live refresh. The region's hx-trigger names two events and no filter:
  // the Content-Security-Policy allows no eval, so htmx runs with
  // allowEval off (the htmx-config meta tag) and could not evaluate one.
  // This script decides when the region refreshes and sends the events:
  // gobpm:changed for a pushed change, gobpm:poll for the timer.
  //
  // Pushed updates: /events streams a "changed" event for each committed
  // step the page may show; the region then refreshes once (changes in a
  // burst are taken together). While the stream is open the region polls
  // only every 30 seconds (steps of other cluster nodes are not pushed);
  // while it is closed or broken, every 2 seconds.
  //
  // A refresh waits while the person is busy in the region — focus in one
  // of its fields or buttons, or an open panel holding fields a swap would
  // discard (not hx-preserve) — and happens once they are done (focus
  // leaves, the panel closes).
  var pollEvery = 2000;
  var pollWhilePushed = 15; // polls skipped per poll made while pushed: 30 s
  var live = null;
  var pushed = false;
  var held = null; // the refresh waiting for the person, if any

  function busy(region) {
    var a = document.activeElement;
    if (a && region.contains(a) && /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(a.tagName)) return true;
    return Array.prototype.some.call(region.querySelectorAll('details[open]'), function (d) {
      return !d.closest('[hx-preserve]') && !!d.querySelector('input:not([type=hidden]), textarea, select');
    });
  }

  // liveMode is what the region's content asks for (data-live on an
  // element inside it, see LivePoll and LiveFinal in web/templates):
  // "poll", every 2 s even while pushed (what it shows is not pushed);
  // "final", no refresh any more (nothing it shows changes); else "".
  function liveMode() {
    var m = live.querySelector('[data-live]');
    return m ? m.getAttribute('data-live') : '';
  }

  function refresh(kind) {
    if (!live || liveMode() === 'final') return;
    if (busy(live)) {
      hold(kind);
      return;
    }
    window.htmx.trigger(live, kind);
  }

  // hold keeps one refresh until the person is done; a pushed change
  // outranks a poll (the tests and the counters tell them apart).
  function hold(kind) {
    if (held) {
      if (kind === 'gobpm:changed') held = kind;
      return;
    }
    held = kind;
    var check = function () {
      // Focus moves after focusout: look once it has landed.
      setTimeout(function () {
        if (!held || busy(live)) return;
        live.removeEventListener('focusout', check);
        live.removeEventListener('toggle', check, true);
        var k = held;
        held = null;
        refresh(k);
      }, 0);
    };
    live.addEventListener('focusout', check);
    live.addEventListener('toggle', check, true); // toggle does not bubble
  }

  function eventsURL() {
    var m = location.pathname.match(/^\/instances\/([^/]+)$/);
    if (m) return '/events?instance=' + m[1];
    if (location.pathname === '/tasks') return '/events?topic=tasks';
    if (location.pathname === '/incidents') return '/events?topic=incidents';
    return '/events';
  }

  function initLive() {
    live = document.getElementById('live');
    if (!live || typeof window.htmx === 'undefined') {
      live = null;
      return;
    }
    var ticks = 0;
    setInterval(function () {
      ticks++;
      if (!pushed || liveMode() === 'poll' || ticks % pollWhilePushed === 0) refresh('gobpm:poll');
    }, pollEvery);
    if (typeof window.EventSource === 'undefined') return;
    var es = new EventSource(eventsURL());
    var pending = null;
    es.addEventListener('open', function () { pushed = true; live.dataset.push = 'on'; });
    es.addEventListener('error', function () { pushed = false; live.dataset.push = 'off'; });
    es.addEventListener('changed', function () {
      live.dataset.pushed = String(Number(live.dataset.pushed || 0) + 1);
      if (!pending) pending = setTimeout(function () { pending = null; refresh('gobpm:changed'); }, 150);
    });
    window.addEventListener('pagehide', function () { es.close(); });
  }

  var viewer = null;
  var container = null;

  function badge(kind, n, title) {
    var el = document.createElement('span');
    el.className = 'badge badge-' + kind;
    el.title = title;
    el.textContent = String(n);
    el.setAttribute('data-testid', 'overlay-' + kind);
    return el;
  }

  function applyState() {
    var holder = document.getElementById('diagram-state');
    if (!viewer || !holder || !container || container.dataset.rendered !== 'true') return;
    var state;
    try { state = JSON.parse(holder.dataset.state || '{}'); } catch (e) { return; }
    var overlays = viewer.get('overlays');
    var canvas = viewer.get('canvas');
    var registry = viewer.get('elementRegistry');
    overlays.remove({ type: 'gobpm' });
    registry.getAll().forEach(function (e) {
      canvas.removeMarker(e.id, 'gobpm-active');
      canvas.removeMarker(e.id, 'gobpm-incident');
      canvas.removeMarker(e.id, 'gobpm-offer');
      canvas.removeMarker(e.id, 'gobpm-taken');
      canvas.removeMarker(e.id, 'gobpm-problem');
    });
    var problems = [];
    (state.problems || []).forEach(function (x) {
      if (!registry.get(x.id)) return;
      canvas.addMarker(x.id, 'gobpm-problem');
      problems.push(x.id);
      overlays.add(x.id, 'gobpm', { position: { top: -24, right: 24 }, html: badge('incident', '!', x.detail) });
    });
    container.dataset.problems = problems.join(' ');
    markPath(state.path, registry, canvas);
    var active = [], incidents = [], offers = [];
    (state.elements || []).forEach(function (x) {
      if (!registry.get(x.id)) return;
      if (x.active > 0) {
        canvas.addMarker(x.id, 'gobpm-active');
        active.push(x.id);
        // Counted over a page of tokens only: the count is a lower bound.
        var n = state.partial ? x.active + '+' : x.active;
        var what = state.partial ? 'at least ' + x.active + ' active token(s) (counted over the shown page of tokens)' : x.active + ' active token(s)';
        overlays.add(x.id, 'gobpm', { position: { top: -24, left: 0 }, html: badge('count', n, what) });
      }
      var inc = (x.incidents || 0) + (x.childIncidents || 0);
      if (inc > 0) {
        canvas.addMarker(x.id, 'gobpm-incident');
        incidents.push(x.id);
        overlays.add(x.id, 'gobpm', { position: { top: -24, right: 24 }, html: badge('incident', inc, inc + ' open incident(s), here or in called instances') });
      }
      if (x.candidates > 0) {
        // An ad-hoc region offering activities: the badge leads to its Activate buttons.
        canvas.addMarker(x.id, 'gobpm-offer');
        offers.push(x.id);
        var b = badge('offer', x.candidates + ' to activate', x.candidates + ' candidate activities: pick one under Ad-hoc regions');
        b.addEventListener('click', function () { location.hash = 'adhoc'; });
        overlays.add(x.id, 'gobpm', { position: { top: -24, left: 34 }, html: b });
      }
    });
    container.dataset.offers = offers.join(' ');
    container.dataset.active = active.join(' ');
    container.dataset.incidents = incidents.join(' ');
  }

  // markPath marks the path the instance took, from its history: the
  // completed elements, and the flows between a completed element and one
  // reached after it (for a gateway that recorded its choice, only the
  // flows it took).
  function markPath(path, registry, canvas) {
    if (!path) return;
    var completed = {}, reached = {}, flows = {}, decided = {}, taken = [];
    (path.completed || []).forEach(function (id) { completed[id] = true; reached[id] = true; });
    (path.reached || []).forEach(function (id) { reached[id] = true; });
    (path.flows || []).forEach(function (id) { flows[id] = true; });
    (path.decided || []).forEach(function (id) { decided[id] = true; });
    registry.getAll().forEach(function (e) {
      var bo = e.businessObject;
      if (!bo) return;
      var take;
      if (e.waypoints) {
        if (!bo.sourceRef || !bo.targetRef || bo.$type !== 'bpmn:SequenceFlow') return;
        take = flows[bo.id] || (!decided[bo.sourceRef.id] && completed[bo.sourceRef.id] && reached[bo.targetRef.id]);
      } else {
        take = completed[e.id] && e.type !== 'label';
      }
      if (take) {
        canvas.addMarker(e.id, 'gobpm-taken');
        taken.push(e.id);
      }
    });
    container.dataset.taken = taken.join(' ');
  }

  function message(text) {
    var p = document.createElement('p');
    p.className = 'diagram-message';
    p.textContent = text;
    container.appendChild(p);
  }

  // Heatmaps (process insight): the overlay picked in the switch is drawn
  // from #heatmap-data, where the server wrote every overlay's numbers (so
  // the switch needs no request), and that overlay's legend is shown. The
  // badges use their own overlay type: the live refresh (applyState) leaves
  // them alone.
  function heatKind() {
    var checked = document.querySelector('[data-testid="overlay-switch"] input[name="overlay"]:checked');
    return checked ? checked.value : 'none';
  }

  function applyHeatmap() {
    var holder = document.getElementById('heatmap-data');
    if (!viewer || !holder || !container || container.dataset.rendered !== 'true') return;
    var data;
    try { data = JSON.parse(holder.dataset.heatmap || '{}'); } catch (e) { return; }
    var kind = heatKind();
    var overlays = viewer.get('overlays');
    var canvas = viewer.get('canvas');
    var registry = viewer.get('elementRegistry');
    overlays.remove({ type: 'gobpm-heat' });
    registry.getAll().forEach(function (e) {
      for (var i = 0; i <= 5; i++) canvas.removeMarker(e.id, 'gobpm-heat-' + i);
    });
    var shown = [];
    ((data.kinds || {})[kind] || []).forEach(function (x) {
      if (!registry.get(x.id)) return;
      canvas.addMarker(x.id, 'gobpm-heat-' + x.level);
      var el = document.createElement('span');
      el.className = 'badge badge-heat heat-' + x.level;
      el.title = x.title;
      el.textContent = x.text;
      el.setAttribute('data-testid', 'overlay-heat');
      el.dataset.node = x.id;
      overlays.add(x.id, 'gobpm-heat', { position: { bottom: 0, left: 0 }, html: el });
      shown.push(x.id);
    });
    container.dataset.heat = kind;
    container.dataset.heated = shown.join(' ');
    document.querySelectorAll('[data-testid="heatmap-legend"]').forEach(function (l) { l.hidden = l.dataset.kind !== kind; });
  }

  // initHeatmap redraws the heatmap when the switch changes and keeps the
  // choice in the address, so a reload or a shared link shows it again.
  function initHeatmap() {
    var sw = document.querySelector('[data-testid="overlay-switch"]');
    if (!sw) return;
    sw.addEventListener('change', function () {
      applyHeatmap();
      var u = new URL(location.href);
      var kind = heatKind();
      if (kind === 'none') u.searchParams.delete('overlay'); else u.searchParams.set('overlay', kind);
      history.replaceState(null, '', u.toString());
    });
  }

  // heatTarget is where a click on an element leads while a heatmap is
  // shown: its drill-down (slowest and failed instances), when the
  // element has statistics in the period; '' otherwise.
  function heatTarget(element) {
    if (heatKind() === 'none') return '';
    var a = document.querySelector('[data-testid="insight-element"][data-node="' + CSS.escape(element.id) + '"] a[data-testid="insight-element-link"]');
    if (!a) return '';
    var u = new URL(a.getAttribute('href'), location.href);
    u.searchParams.set('overlay', heatKind());
    return u.pathname + u.search + u.hash;
  }

  // elementTarget is where a click on a diagram element leads: on a
  // process page, the instances of this version waiting or failed at a
  // flow node; on an instance page, the instance a call activity called
  // (the list of them when it called several). '' when nowhere.
  function elementTarget(element) {
    var links = document.getElementById('diagram-links');
    var bo = element && element.businessObject;
    if (!links || !bo || typeof bo.$instanceOf !== 'function' || element.type === 'label') return '';
    if (links.dataset.elementUrl !== undefined) {
      if (!bo.$instanceOf('bpmn:FlowNode')) return '';
      var heat = heatTarget(element);
      if (heat) return heat;
      var base = links.dataset.elementUrl;
      return base + (base.indexOf('?') < 0 ? '?' : '&') + 'element=' + encodeURIComponent(element.id);
    }
    if (links.dataset.childrenUrl !== undefined && bo.$instanceOf('bpmn:CallActivity')) {
      var rows = document.querySelectorAll('[data-testid="child"][data-node="' + CSS.escape(element.id) + '"] a[data-testid="child-link"]');
      if (rows.length === 1) return rows[0].getAttribute('href');
      if (rows.length > 1) return links.dataset.childrenUrl;
    }
    return '';
  }

  // initDiagramClicks makes the elements with a target clickable.
  function initDiagramClicks() {
    var bus = viewer.get('eventBus');
    bus.on('element.hover', function (e) {
      if (e.gfx) e.gfx.style.cursor = elementTarget(e.element) ? 'pointer' : '';
    });
    bus.on('element.click', function (e) {
      var to = elementTarget(e.element);
      if (to) location.assign(to);
    });
  }

  function initDiagram() {
    container = document.getElementById('diagram');
    if (!container) return;
    if (typeof window.BpmnJS === 'undefined') {
      container.dataset.rendered = 'error';
      message('The diagram viewer is not built into this binary: run make vendor, then rebuild.');
      return;
    }
    viewer = new window.BpmnJS({ container: container });
    var auto = container.dataset.layout === 'auto';
    Promise.all([
      // A refused upload carries its XML (it was never stored).
      container.dataset.xml !== undefined ? container.dataset.xml : fetch(container.dataset.xmlUrl, { credentials: 'same-origin' }).then(function (r) {
        if (!r.ok) throw new Error('the model could not be loaded (HTTP ' + r.status + ')');
        return r.text();
      }),
      auto ? loadScript(container.dataset.layoutScript) : null
    ])
      .then(function (got) {
        if (!auto) return got[0];
        if (typeof window.gobpmLayoutProcess !== 'function') throw new Error('the layout script did not load');
        // No diagram interchange (BPMNDI) in the model: lay it out here.
        return window.gobpmLayoutProcess(got[0]);
      })
      .then(function (xml) { return viewer.importXML(xml); })
      .then(function () {
        viewer.get('canvas').zoom('fit-viewport', 'auto');
        container.dataset.rendered = 'true';
        initDiagramClicks();
        applyState();
        applyHeatmap();
      })
      .catch(function (err) {
        container.dataset.rendered = 'error';
        message('The diagram could not be drawn: ' + (err && err.message ? err.message : err));
      });
  }

  // initDecision draws a decision with dmn-js: its table (or literal
  // expression) first, a button per view of its document (the
  // requirements diagram, the other decisions), and the rules the last
  // evaluation matched marked in the table.
  function initDecision() {
    var el = document.getElementById('dmn');
    if (!el) return;
    var fail = function (text) {
      el.dataset.rendered = 'error';
      var p = document.createElement('p');
      p.className = 'diagram-message';
      p.textContent = text;
      el.appendChild(p);
    };
    if (typeof window.DmnJS === 'undefined') {
      fail('The decision viewer is not built into this binary: run make vendor, then rebuild.');
      return;
    }
    var dmn = new window.DmnJS({ container: el });
    var bar = document.querySelector('[data-testid="dmn-views"]');
    var matched = (el.dataset.matched || '').split(', ').filter(Boolean);
    var mark = function () {
      var n = 0;
      matched.forEach(function (id) {
        document.querySelectorAll('#dmn [data-row-id="' + CSS.escape(id) + '"]').forEach(function (c) {
          c.classList.add('gobpm-matched');
          n++;
        });
      });
      el.dataset.marked = String(n);
    };
    var open = function (view) {
      return dmn.open(view).then(function () {
        el.dataset.view = view.type + ':' + view.element.id;
        mark();
      });
    };
    fetch(el.dataset.xmlUrl, { credentials: 'same-origin' })
      .then(function (r) {
        if (!r.ok) throw new Error('the decision could not be loaded (HTTP ' + r.status + ')');
        return r.text();
      })
      .then(function (xml) { return dmn.importXML(xml); })
      .then(function () {
        var views = dmn.getViews();
        // A document without DMNDI has no requirements diagram to show;
        // with one view there is nothing to switch to.
        if (views.length < 2) views = [];
        views.forEach(function (v) {
          var b = document.createElement('button');
          b.type = 'button';
          b.textContent = v.type === 'drd' ? 'Requirements diagram' : (v.element.name || v.element.id);
          b.dataset.view = v.type + ':' + v.element.id;
          b.addEventListener('click', function () { open(v); });
          bar.appendChild(b);
        });
        var all = dmn.getViews();
        var first = all.filter(function (v) { return v.type !== 'drd' && v.element.id === el.dataset.decision; })[0] || all[0];
        return open(first);
      })
      .then(function () { el.dataset.rendered = 'true'; })
      .catch(function (err) { fail('The decision could not be drawn: ' + (err && err.message ? err.message : err)); });
  }

  // The namespaces of the engine-settings dialects the modeler's panel
  // reads and writes: gobpm's own, Camunda 8's (zeebe) and Camunda 7's.
  var dialectNS = {
    gobpm: 'urn:gobpm:1',
    zeebe: 'http://camunda.org/schema/zeebe/1.0',
    camunda: 'http://camunda.org/schema/1.0/bpmn'
  };

  // Spellings of a setting: an attribute of the element in a dialect's
  // namespace (attr), an attribute of a zeebe extension element (ext,
  // attr), or a standard BPMN attribute (d: 'bpmn'). blank: a blank value
  // counts as absent, as the parser reads it.
  var gAttr = function (a, o) { return Object.assign({ d: 'gobpm', attr: a }, o); };
  var zExt = function (e, a, o) { return Object.assign({ d: 'zeebe', ext: e, attr: a }, o); };
  var cAttr = function (a, o) { return Object.assign({ d: 'camunda', attr: a }, o); };
  var blank = { blank: true };
  // Spellings kept in a list of entries: an input mapping by its target
  // (gobpm:input, or zeebe:input in zeebe:ioMapping), a job header by its
  // key (zeebe:header in zeebe:taskHeaders), a connector property by its
  // name (zeebe:property in zeebe:properties).
  var gIO = function (t) { return { d: 'gobpm', list: 'io', name: t }; };
  var zIO = function (t) { return { d: 'zeebe', list: 'io', name: t }; };
  var zHdr = function (k) { return { d: 'zeebe', list: 'header', name: k }; };
  var zProp = function (n) { return { d: 'zeebe', list: 'property', name: n }; };

  // The settings the modeler's panel edits, by element type (a service or
  // send task's as a job for a worker; an HTTP call and a webhook have
  // their own below), each with its
  // spellings in the parser's precedence (internal/bpmn: gobpm > zeebe >
  // camunda; a call's zeebe:calledElement processId over calledElement; a
  // form as the inbox reads it, taskform.go). The first spelling found is
  // shown and edited in place; a setting the element lacks is written in
  // the dialect the element (else the model) already uses, gobpm without
  // one, and its other spellings are removed.
  var jobFields = [
    { key: 'gobpm:type', label: 'Job type', at: [gAttr('type'), zExt('taskDefinition', 'type'), cAttr('topic', { external: true })] },
    { key: 'gobpm:retries', label: 'Retries', at: [gAttr('retries'), zExt('taskDefinition', 'retries')] }
  ];
  var modelerFields = {
    'bpmn:ServiceTask': jobFields,
    'bpmn:SendTask': jobFields,
    'bpmn:UserTask': [
      { key: 'gobpm:assignee', label: 'Assignee', at: [gAttr('assignee', blank), zExt('assignmentDefinition', 'assignee', blank), cAttr('assignee', blank)] },
      { key: 'gobpm:candidateUsers', label: 'Candidate users', at: [gAttr('candidateUsers', blank), zExt('assignmentDefinition', 'candidateUsers', blank), cAttr('candidateUsers', blank)] },
      { key: 'gobpm:candidateGroups', label: 'Candidate groups', at: [gAttr('candidateGroups', blank), zExt('assignmentDefinition', 'candidateGroups', blank), cAttr('candidateGroups', blank)] },
      { key: 'gobpm:dueDate', label: 'Due date', at: [gAttr('dueDate', blank), zExt('taskSchedule', 'dueDate', blank), cAttr('dueDate', blank)] },
      { key: 'gobpm:formRef', label: 'Form id', at: [zExt('formDefinition', 'formId'), gAttr('formRef', blank), cAttr('formRef', blank)] }
    ],
    'bpmn:CallActivity': [
      { key: 'calledElement', label: 'Called process', at: [zExt('calledElement', 'processId', blank), { d: 'bpmn', attr: 'calledElement' }] }
    ],
    'bpmn:BusinessRuleTask': [
      { key: 'gobpm:decisionRef', label: 'Decision', at: [gAttr('decisionRef'), zExt('calledDecision', 'decisionId'), cAttr('decisionRef')] },
      { key: 'gobpm:resultVariable', label: 'Result variable', at: [gAttr('resultVariable'), zExt('calledDecision', 'resultVariable'), cAttr('resultVariable')] }
    ],
    'bpmn:AdHocSubProcess': [
      { key: 'gobpm:router', label: 'Router', at: [gAttr('router')] },
      { key: 'gobpm:selection', label: 'Selection', at: [gAttr('selection')] },
      { key: 'gobpm:retries', label: 'Router job retries', at: [gAttr('retries')] }
    ]
  };

  // The job types of the HTTP call the server makes itself (README, HTTP
  // calls): Camunda 8's REST connector and gobpm's own name for it.
  var httpTypes = { zeebe: 'io.camunda:http-json:1', gobpm: 'gobpm:http' };
  // secretsHint says how credentials go into a model: as placeholders the
  // server resolves when it uses them, never as values.
  var secretsHint = 'Credentials: write {{secrets.NAME}}, never the value itself. The server replaces it only when it uses it (the call, the webhook check), from GOBPM_SECRET_NAME or its --secrets-file; the model keeps the placeholder only.';

  // The HTTP call's inputs (input mappings, in the element's dialect) and
  // headers (zeebe:taskHeaders in both spellings), as Camunda 8's REST
  // connector template names them. A field is a text input, a text area
  // (area) or a choice (choices: [value, label]; empty: the value shown
  // when the setting is missing, which is its default; fold: matched in any
  // case, as the server reads it). feel: the value is FEEL, "=" added when
  // missing; auth: shown for that authentication type only; secret: the
  // secrets hint describes it; rerender: the panel is drawn again after a
  // change (the fields shown depend on it).
  var httpIn = function (t) { return [gIO(t), zIO(t)]; };
  var httpFields = [
    { key: 'http:method', label: 'Method', at: httpIn('method'), choices: [['GET', 'GET'], ['POST', 'POST'], ['PUT', 'PUT'], ['PATCH', 'PATCH'], ['DELETE', 'DELETE'], ['HEAD', 'HEAD'], ['OPTIONS', 'OPTIONS']], fold: true, empty: 'GET' },
    { key: 'http:url', label: 'URL', at: httpIn('url'), placeholder: 'https://api.example.com/orders or =FEEL' },
    { key: 'http:headers', label: 'Headers (FEEL context)', at: httpIn('headers'), feel: true, area: true, placeholder: '={"Accept": "application/json"}' },
    { key: 'http:queryParameters', label: 'Query parameters (FEEL context)', at: httpIn('queryParameters'), feel: true, area: true, placeholder: '={page: 1}' },
    { key: 'http:body', label: 'Body', at: httpIn('body'), area: true, placeholder: '={orderId: orderId} (JSON) or text' },
    { key: 'http:authentication.type', label: 'Authentication', at: httpIn('authentication.type'), rerender: true, empty: 'noAuth',
      choices: [['noAuth', 'None'], ['basic', 'Basic'], ['bearer', 'Bearer token'], ['apiKey', 'API key'], ['oauth-client-credentials-flow', 'OAuth 2.0 client credentials']] },
    { key: 'http:authentication.username', label: 'Username', at: httpIn('authentication.username'), auth: 'basic' },
    { key: 'http:authentication.password', label: 'Password', at: httpIn('authentication.password'), auth: 'basic', secret: true },
    { key: 'http:authentication.token', label: 'Bearer token', at: httpIn('authentication.token'), auth: 'bearer', secret: true },
    { key: 'http:authentication.name', label: 'API key name', at: httpIn('authentication.name'), auth: 'apiKey' },
    { key: 'http:authentication.value', label: 'API key value', at: httpIn('authentication.value'), auth: 'apiKey', secret: true },
    { key: 'http:authentication.apiKeyLocation', label: 'API key sent in', at: httpIn('authentication.apiKeyLocation'), auth: 'apiKey', empty: 'headers', choices: [['headers', 'Headers'], ['query', 'Query parameters']] },
    { key: 'http:authentication.oauthTokenEndpoint', label: 'Token endpoint', at: httpIn('authentication.oauthTokenEndpoint'), auth: 'oauth-client-credentials-flow' },
    { key: 'http:authentication.clientId', label: 'Client id', at: httpIn('authentication.clientId'), auth: 'oauth-client-credentials-flow' },
    { key: 'http:authentication.clientSecret', label: 'Client secret', at: httpIn('authentication.clientSecret'), auth: 'oauth-client-credentials-flow', secret: true },
    { key: 'http:authentication.audience', label: 'Audience', at: httpIn('authentication.audience'), auth: 'oauth-client-credentials-flow' },
    { key: 'http:authentication.scopes', label: 'Scopes', at: httpIn('authentication.scopes'), auth: 'oauth-client-credentials-flow' },
    { key: 'http:authentication.clientAuthentication', label: 'Client authentication', at: httpIn('authentication.clientAuthentication'), auth: 'oauth-client-credentials-flow', empty: 'credentialsBody',
      choices: [['credentialsBody', 'Credentials in the body'], ['basicAuthHeader', 'Basic authentication header']] },
    { key: 'http:connectionTimeoutInSeconds', label: 'Connection timeout (seconds)', at: httpIn('connectionTimeoutInSeconds'), placeholder: '20' },
    { key: 'http:readTimeoutInSeconds', label: 'Read timeout (seconds)', at: httpIn('readTimeoutInSeconds'), placeholder: '20' },
    { key: 'http:resultVariable', label: 'Result variable', at: [zHdr('resultVariable')] },
    { key: 'http:resultExpression', label: 'Result expression (FEEL)', at: [zHdr('resultExpression')], feel: true, area: true, placeholder: '={customer: body}' },
    { key: 'http:errorExpression', label: 'Error expression (FEEL)', at: [zHdr('errorExpression')], feel: true, area: true, placeholder: '=if error.code = "404" then bpmnError("NOT_FOUND", error.message) else null' },
    { key: 'http:retryBackoff', label: 'Retry backoff (ISO 8601)', at: [zHdr('retryBackoff')], placeholder: 'PT30S' }
  ];

  // The webhook connector's properties (Camunda 8's inbound webhook
  // element templates: zeebe:property on the event in every dialect), as
  // httpFields. hmac: shown when HMAC is checked; fill: the template's value,
  // written when the field appears; catchOnly: on a message catch or
  // boundary event only.
  var hookAt = function (n) { return [zProp(n)]; };
  var webhookFields = [
    { key: 'inbound.context', label: 'Path (served at /webhooks/…)', at: hookAt('inbound.context'), placeholder: 'order-created' },
    { key: 'inbound.method', label: 'Method', at: hookAt('inbound.method'), empty: 'any',
      choices: [['any', 'Any'], ['get', 'GET'], ['post', 'POST'], ['put', 'PUT'], ['delete', 'DELETE']] },
    { key: 'inbound.auth.type', label: 'Authentication', at: hookAt('inbound.auth.type'), rerender: true, empty: 'NONE',
      choices: [['NONE', 'None'], ['BASIC', 'Basic'], ['APIKEY', 'API key']] },
    { key: 'inbound.auth.username', label: 'Username', at: hookAt('inbound.auth.username'), auth: 'BASIC' },
    { key: 'inbound.auth.password', label: 'Password', at: hookAt('inbound.auth.password'), auth: 'BASIC', secret: true },
    { key: 'inbound.auth.apiKey', label: 'API key', at: hookAt('inbound.auth.apiKey'), auth: 'APIKEY', secret: true },
    { key: 'inbound.auth.apiKeyLocator', label: 'API key locator (FEEL)', at: hookAt('inbound.auth.apiKeyLocator'), auth: 'APIKEY', feel: true, fill: '=split(request.headers.authorization, " ")[2]' },
    { key: 'inbound.shouldValidateHmac', label: 'HMAC signature', at: hookAt('inbound.shouldValidateHmac'), rerender: true, empty: 'disabled',
      choices: [['disabled', 'Not checked'], ['enabled', 'Checked']] },
    { key: 'inbound.hmacSecret', label: 'HMAC secret', at: hookAt('inbound.hmacSecret'), hmac: true, secret: true },
    { key: 'inbound.hmacHeader', label: 'HMAC header', at: hookAt('inbound.hmacHeader'), hmac: true, placeholder: 'X-Signature' },
    { key: 'inbound.hmacAlgorithm', label: 'HMAC algorithm', at: hookAt('inbound.hmacAlgorithm'), hmac: true, empty: 'sha_256', fill: 'sha_256',
      choices: [['sha_1', 'SHA-1'], ['sha_256', 'SHA-256'], ['sha_512', 'SHA-512']] },
    { key: 'resultVariable', label: 'Result variable', at: hookAt('resultVariable') },
    { key: 'resultExpression', label: 'Result expression (FEEL over request)', at: hookAt('resultExpression'), feel: true, area: true, placeholder: '={orderId: request.body.orderId}' },
    { key: 'correlationKeyExpression', label: 'Correlation key from the request (FEEL)', at: hookAt('correlationKeyExpression'), feel: true, catchOnly: true, placeholder: '=request.body.orderId' }
  ];
  // webhookType marks an event as a webhook (inbound.type); the template's
  // defaults are written with it.
  var webhookType = 'io.camunda:webhook:1';
  var webhookDefaults = [['inbound.method', 'any'], ['inbound.shouldValidateHmac', 'disabled'], ['inbound.auth.type', 'NONE']];
  // messageKeyField is the correlation key of a catch event's message, the
  // process side of the correlation (gobpm:correlationKey or
  // zeebe:subscription, as the parser reads it).
  var messageKeyField = { key: 'message:correlationKey', label: 'Correlation key in the process (FEEL)', feel: true,
    at: [gAttr('correlationKey', blank), zExt('subscription', 'correlationKey', blank)], placeholder: '=orderId' };

  // modelerSettings reads and writes the settings of modelerFields on the
  // modeler's business objects. bpmn-js has no descriptors for the gobpm,
  // zeebe and camunda namespaces, so their attributes are kept in $attrs
  // under the document's own prefix and zeebe's extension elements as
  // generic elements; both round-trip through saveXML unchanged.
  function modelerSettings(modeler) {
    var defs = function () { return modeler.getDefinitions(); };
    // prefix is the prefix the document binds to dialect d's namespace,
    // else the dialect's own name.
    var prefix = function (d) {
      var a = defs().$attrs;
      for (var k in a) {
        if (k.indexOf('xmlns:') === 0 && a[k] === dialectNS[d]) return k.slice(6);
      }
      return d;
    };
    var values = function (bo) { return (bo.extensionElements && bo.extensionElements.values) || []; };
    var extOf = function (bo, d, name) {
      return values(bo).filter(function (v) {
        var ns = v.$descriptor && v.$descriptor.ns;
        return ns && ns.uri === dialectNS[d] && ns.localName === name;
      })[0];
    };
    var has = function (o, k) { return Object.prototype.hasOwnProperty.call(o, k); };
    var isNS = function (v, d, name) {
      var ns = v.$descriptor && v.$descriptor.ns;
      return !!ns && ns.uri === dialectNS[d] && ns.localName === name;
    };
    // lists says where the entries of a list spelling are kept: in box (an
    // extension element; none: the extension elements themselves) as child
    // elements whose key attribute names them and whose val holds the value.
    var lists = {
      io: { gobpm: { child: 'input', key: 'target', val: 'source' }, zeebe: { box: 'ioMapping', child: 'input', key: 'target', val: 'source' } },
      header: { zeebe: { box: 'taskHeaders', child: 'header', key: 'key', val: 'value' } },
      property: { zeebe: { box: 'properties', child: 'property', key: 'name', val: 'value' } }
    };
    // entries returns the entries of list spelling s on bo named s.name,
    // with the array holding them.
    var entries = function (bo, s) {
      var l = lists[s.list][s.d];
      var box = l.box ? extOf(bo, s.d, l.box) : null;
      var from = l.box ? (box && box.$children) || [] : values(bo);
      return { l: l, box: box, from: from, all: from.filter(function (v) { return isNS(v, s.d, l.child) && v[l.key] === s.name; }) };
    };
    // dropEmpty removes an extension element that holds nothing, and the
    // extension elements when they hold nothing.
    var dropEmpty = function (bo, x) {
      if (x) {
        var left = Object.keys(x).filter(function (k) { return k.charAt(0) !== '$'; });
        if (left.length || (x.$children && x.$children.length) || x.$body) return;
        bo.extensionElements.values.splice(bo.extensionElements.values.indexOf(x), 1);
      }
      if (bo.extensionElements && !bo.extensionElements.values.length) bo.set('extensionElements', undefined);
    };
    var extensions = function (bo) {
      if (!bo.extensionElements) {
        bo.set('extensionElements', modeler.get('moddle').create('bpmn:ExtensionElements', { values: [] }));
        bo.extensionElements.$parent = bo;
      }
      return bo.extensionElements;
    };
    // putEntry sets (v undefined: removes) list spelling s on bo: the last
    // entry of its name is the one in effect, as the parser reads a
    // repeated header or target, so earlier ones are removed.
    var putEntry = function (bo, s, v) {
      var moddle = modeler.get('moddle');
      var e = entries(bo, s), l = e.l;
      var keep = v === undefined ? null : e.all[e.all.length - 1];
      e.all.forEach(function (x) { if (x !== keep) e.from.splice(e.from.indexOf(x), 1); });
      if (v === undefined) {
        dropEmpty(bo, e.box);
        return;
      }
      if (keep) {
        keep[l.val] = v;
        return;
      }
      var props = {};
      // Attributes in the order Camunda's modeler writes them.
      if (l.val === 'source') { props.source = v; props[l.key] = s.name; } else { props[l.key] = s.name; props[l.val] = v; }
      var x = moddle.createAny(prefix(s.d) + ':' + l.child, dialectNS[s.d], props);
      if (!l.box) {
        x.$parent = extensions(bo);
        bo.extensionElements.get('values').push(x);
        return;
      }
      var box = e.box;
      if (!box) {
        box = moddle.createAny(prefix(s.d) + ':' + l.box, dialectNS[s.d], {});
        box.$parent = extensions(bo);
        bo.extensionElements.get('values').push(box);
      }
      box.$children = box.$children || [];
      x.$parent = box;
      box.$children.push(x);
    };
    // get returns the value of spelling s on bo, undefined when absent.
    var get = function (bo, s) {
      if (s.list) {
        var e = entries(bo, s), x = e.all[e.all.length - 1];
        if (!x) return undefined;
        return x[e.l.val] === undefined || x[e.l.val] === null ? '' : x[e.l.val];
      }
      if (s.d === 'bpmn') return bo.get(s.attr);
      if (s.ext) {
        var x = extOf(bo, s.d, s.ext);
        return x && has(x, s.attr) ? x[s.attr] : undefined;
      }
      return bo.$attrs[prefix(s.d) + ':' + s.attr];
    };
    var present = function (bo, s) {
      var v = get(bo, s);
      return v !== undefined && v !== null && !(s.blank && String(v).trim() === '');
    };
    // read returns the spelling in effect and its value, or null.
    var read = function (bo, f) {
      var s = f.at.filter(function (s) { return present(bo, s); })[0];
      return s ? { s: s, value: String(get(bo, s)) } : null;
    };
    // uses says whether bo carries anything of dialect d.
    var uses = function (bo, d) {
      var p = prefix(d) + ':';
      return Object.keys(bo.$attrs || {}).some(function (k) { return k.indexOf(p) === 0; }) ||
        values(bo).some(function (v) { return v.$descriptor && v.$descriptor.ns && v.$descriptor.ns.uri === dialectNS[d]; });
    };
    var order = ['gobpm', 'zeebe', 'camunda'];
    var modelDialect = function () {
      var all = modeler.get('elementRegistry').getAll().map(function (e) { return e.businessObject; });
      return order.filter(function (d) { return all.some(function (bo) { return bo && uses(bo, d); }); })[0];
    };
    // target is the spelling a new value of f on bo is written in.
    var target = function (bo, f) {
      var cur = read(bo, f);
      if (cur) return cur.s;
      var d = order.filter(function (d) { return uses(bo, d); })[0] || modelDialect() || 'gobpm';
      var mine = function (s) { return s.d === d; };
      var own = function (s) { return s.d === 'gobpm' || s.d === 'bpmn'; };
      // A setting with no spelling of the dialect (zeebe:taskHeaders and
      // the webhook's zeebe:properties in a gobpm model) keeps its own.
      return f.at.filter(mine)[0] || f.at.filter(own)[0] || f.at[0];
    };
    var put = function (bo, s, v) {
      if (s.list) {
        putEntry(bo, s, v);
        return;
      }
      if (s.d === 'bpmn') {
        bo.set(s.attr, v);
        return;
      }
      if (!s.ext) {
        var k = prefix(s.d) + ':' + s.attr;
        if (v === undefined) {
          delete bo.$attrs[k];
          if (s.external && bo.$attrs[prefix(s.d) + ':type'] === 'external') delete bo.$attrs[prefix(s.d) + ':type'];
        } else {
          bo.$attrs[k] = v;
          if (s.external) bo.$attrs[prefix(s.d) + ':type'] = 'external';
        }
        return;
      }
      putExt(bo, s, v);
    };
    var putExt = function (bo, s, v) {
      var moddle = modeler.get('moddle');
      var x = extOf(bo, s.d, s.ext);
      if (v === undefined) {
        if (!x) return;
        delete x[s.attr];
        dropEmpty(bo, x);
        return;
      }
      if (!x) {
        extensions(bo);
        x = moddle.createAny(prefix(s.d) + ':' + s.ext, dialectNS[s.d], {});
        x.$parent = bo.extensionElements;
        bo.extensionElements.get('values').push(x);
      }
      x[s.attr] = v;
    };
    // write sets f on bo to v (blank: removed) in its target spelling and
    // removes its other spellings: one dialect per setting.
    var write = function (bo, f, v, d) {
      var to = d ? f.at.filter(function (s) { return s.d === d; })[0] : target(bo, f);
      f.at.forEach(function (s) { if (s !== to) put(bo, s, undefined); });
      put(bo, to, v === '' ? undefined : v);
    };
    // where names the spelling f is shown from or would be written in.
    var where = function (bo, f) {
      var s = target(bo, f);
      if (s.list) {
        var l = lists[s.list][s.d];
        return (l.box ? s.d + ':' + l.box + ' ' : '') + s.d + ':' + l.child + ' ' + l.key + '="' + s.name + '"';
      }
      if (s.d === 'bpmn') return s.attr;
      return s.ext ? s.d + ':' + s.ext + ' ' + s.attr : s.d + ':' + s.attr;
    };
    return {
      read: function (bo, f) { var r = read(bo, f); return r ? r.value : ''; },
      // write sets f on bo to v in its target spelling, or in dialect d's
      // when given.
      write: write,
      where: where,
      dialect: function (bo, f) { return target(bo, f).d; },
      prefix: prefix
    };
  }

  // fitBesidePalette fits the diagram into the part of the modeler's
  // canvas right of its palette (which floats over the canvas's left
  // edge), never enlarging it past 100 %, and centres it vertically: a
  // plain fit-viewport put the start event under the palette.
  function fitBesidePalette(canvas, container) {
    canvas.zoom('fit-viewport', 'auto');
    var palette = container.querySelector('.djs-palette');
    var vb = canvas.viewbox();
    var inner = vb.inner, outer = vb.outer, pad = 24;
    if (!palette || !inner.width || !inner.height) return;
    var room = palette.getBoundingClientRect().right - container.getBoundingClientRect().left + pad;
    var scale = Math.min(1, (outer.width - room - pad) / inner.width, (outer.height - 2 * pad) / inner.height);
    if (!(scale > 0)) return;
    var width = outer.width / scale, height = outer.height / scale;
    canvas.viewbox({ x: inner.x - room / scale, y: inner.y - (height - inner.height) / 2, width: width, height: height });
  }

  // initModeler opens the model in the bpmn-js Modeler with a small panel
  // for the selected element, and deploys it as the next version; a
  // refusal marks each problem on the element it names.
  function initModeler() {
    var el = document.getElementById('modeler');
    if (!el) return;
    var fields = document.getElementById('props-fields');
    var none = document.querySelector('[data-testid="props-none"]');
    var deploy = document.getElementById('modeler-deploy');
    var outcome = document.getElementById('modeler-outcome');
    var say = function (text, kind) {
      outcome.className = 'flash flash-' + kind;
      outcome.textContent = text;
    };
    if (typeof window.BpmnJS === 'undefined') {
      say('The modeler is not built into this binary: run make vendor, then rebuild.', 'error');
      return;
    }
    var modeler = new window.BpmnJS({ container: el });
    window.gobpmModeler = modeler;
    var settings = modelerSettings(modeler);
    var download = document.getElementById('modeler-download');
    var typeField = jobFields[0];
    // kindOf says how the panel treats element: an HTTP call ('http') or a
    // job for a worker ('job') on a task, a webhook ('webhook') or not
    // ('none') on an event that can be one, else null.
    var kindOf = function (element) {
      var bo = element.businessObject;
      if (element.type === 'bpmn:ServiceTask' || element.type === 'bpmn:SendTask') {
        var t = settings.read(bo, typeField);
        return t === httpTypes.zeebe || t === httpTypes.gobpm ? 'http' : 'job';
      }
      if (!hookable(element)) return null;
      return settings.read(bo, { at: [zProp('inbound.type')] }) === webhookType ? 'webhook' : 'none';
    };
    // hookable: a process's start event (none or message), or a message
    // catch or boundary event, which Camunda's webhook templates apply to.
    var hookable = function (element) {
      var bo = element.businessObject;
      var defs = bo.eventDefinitions || [];
      var message = defs.length === 1 && defs[0].$type === 'bpmn:MessageEventDefinition';
      if (element.type === 'bpmn:StartEvent') return bo.$parent && bo.$parent.$type === 'bpmn:Process' && (!defs.length || message);
      return (element.type === 'bpmn:IntermediateCatchEvent' || element.type === 'bpmn:BoundaryEvent') && message;
    };
    var isCatch = function (element) { return element.type !== 'bpmn:StartEvent'; };
    // setKind turns element into kind: an HTTP call gets the job type of
    // the element's dialect (zeebe: Camunda 8's REST connector, else
    // gobpm:http); a job drops the HTTP settings; a webhook gets
    // inbound.type and the template's defaults, and leaving it drops its
    // properties.
    var setKind = function (element, kind) {
      var bo = element.businessObject;
      if (kind === 'http') {
        var d = settings.dialect(bo, typeField) === 'zeebe' ? 'zeebe' : 'gobpm';
        settings.write(bo, typeField, httpTypes[d], d);
      } else if (kind === 'job') {
        httpFields.forEach(function (f) { settings.write(bo, f, ''); });
        settings.write(bo, typeField, '');
      } else if (kind === 'webhook') {
        settings.write(bo, { at: [zProp('inbound.type')] }, webhookType);
        webhookDefaults.forEach(function (kv) {
          var f = { at: [zProp(kv[0])] };
          if (!settings.read(bo, f)) settings.write(bo, f, kv[1]);
        });
      } else {
        webhookFields.forEach(function (f) { settings.write(bo, f, ''); });
        settings.write(bo, { at: [zProp('inbound.type')] }, '');
      }
    };
    // hookDrops are the properties an authentication or HMAC choice makes
    // meaningless, removed with the change.
    var hookDrops = function (bo) {
      var auth = settings.read(bo, webhookFields[2]) || 'NONE';
      var hmac = settings.read(bo, webhookFields[7]) === 'enabled';
      webhookFields.forEach(function (f) {
        if ((f.auth && f.auth !== auth) || (f.hmac && !hmac)) settings.write(bo, f, '');
        var shown = f.auth ? f.auth === auth : f.hmac && hmac;
        if (shown && f.fill && !settings.read(bo, f)) settings.write(bo, f, f.fill);
      });
    };
    var httpDrops = function (bo) {
      var auth = settings.read(bo, httpFields[5]) || 'noAuth';
      httpFields.forEach(function (f) { if (f.auth && f.auth !== auth) settings.write(bo, f, ''); });
    };
    var show = function (element, focus) {
      fields.textContent = '';
      if (!element || element.type === 'bpmn:Process' || element.type === 'label') {
        none.hidden = false;
        return;
      }
      none.hidden = true;
      var bo = element.businessObject;
      var head = document.createElement('p');
      head.innerHTML = '';
      var code = document.createElement('code');
      code.textContent = element.id;
      head.appendChild(document.createTextNode(element.type.replace('bpmn:', '') + ' '));
      head.appendChild(code);
      fields.appendChild(head);
      var into = fields;
      var counter = 0;
      // control adds a field to into: a text input, a text area (o.area)
      // or a choice (o.choices: [value, label]); f (a setting) says where
      // its value is kept, shown under the field; o.secret points at the
      // secrets hint.
      var control = function (name, label, value, set, f, o) {
        o = o || {};
        var l = document.createElement('label');
        l.textContent = label + ' ';
        var input;
        if (o.choices) {
          input = document.createElement('select');
          var current = value || o.empty || '';
          var match = o.choices.filter(function (c) { return o.fold ? c[0].toLowerCase() === current.toLowerCase() : c[0] === current; })[0];
          var choices = o.choices.slice();
          // A value the panel does not offer is kept and shown as written.
          if (!match && current) choices.push([current, current]);
          choices.forEach(function (c) {
            var opt = document.createElement('option');
            opt.value = c[0];
            opt.textContent = c[1];
            input.appendChild(opt);
          });
          input.value = match ? match[0] : current;
          input.dataset.shown = input.value;
        } else {
          input = document.createElement(o.area ? 'textarea' : 'input');
          if (!o.area) input.type = 'text';
          else input.rows = 2;
          input.value = value || '';
          if (o.placeholder) input.placeholder = o.placeholder;
          input.spellcheck = false;
          input.autocomplete = 'off';
        }
        input.dataset.attr = name;
        input.setAttribute('data-testid', 'prop');
        var hint = document.createElement('small');
        hint.className = 'muted prop-where';
        hint.setAttribute('data-testid', 'prop-where');
        var place = function () {
          if (!f) return;
          input.dataset.dialect = settings.dialect(f.bo || bo, f);
          hint.textContent = settings.where(f.bo || bo, f);
        };
        place();
        input.addEventListener('change', function () {
          var v = input.value.trim();
          if (o.feel && v && v.charAt(0) !== '=') v = '=' + v;
          // A choice left at the value it showed for a missing setting
          // writes nothing.
          if (o.choices && !value && v === input.dataset.shown && v === o.empty) v = '';
          set(v);
          el.dataset.dirty = 'true';
          if (o.rerender) {
            show(element, name);
            return;
          }
          if (o.feel && input.value.trim() !== v) input.value = v;
          place();
        });
        l.appendChild(input);
        into.appendChild(l);
        var described = [];
        if (f) {
          hint.id = 'prop-where-' + (++counter);
          described.push(hint.id);
          into.appendChild(hint);
        }
        if (o.secret) {
          described.push('props-secrets');
          input.dataset.secret = 'true';
        }
        if (described.length) input.setAttribute('aria-describedby', described.join(' '));
        return input;
      };
      var add = function (name, label, value, set, f) { return control(name, label, value, set, f); };
      var setting = function (f, target, after) {
        target = target || bo;
        var g = target === bo ? f : Object.assign({ bo: target }, f);
        return control(f.key, f.label, settings.read(target, f), function (v) {
          settings.write(target, f, v);
          if (after) after();
        }, g, f);
      };
      // group opens a fieldset for the settings that follow.
      var group = function (legend, testid) {
        var fs = document.createElement('fieldset');
        fs.className = 'props-group';
        fs.setAttribute('data-testid', testid);
        var lg = document.createElement('legend');
        lg.textContent = legend;
        fs.appendChild(lg);
        fields.appendChild(fs);
        into = fs;
      };
      var hintSecrets = function () {
        var p = document.createElement('p');
        p.id = 'props-secrets';
        p.className = 'muted prop-secrets';
        p.setAttribute('data-testid', 'props-secrets');
        p.textContent = secretsHint;
        into.appendChild(p);
      };
      add('name', 'Name', bo.name, function (v) { modeler.get('modeling').updateProperties(element, { name: v || undefined }); });
      var kind = kindOf(element);
      var setKindTo = function (v) { setKind(element, v); };
      if (kind === 'http' || kind === 'job') {
        control('kind', 'Implementation', kind, setKindTo, null, { choices: [['job', 'Job for a worker'], ['http', 'HTTP call (made by the server)']], rerender: true });
        if (kind === 'job') setting(typeField);
        setting(jobFields[1]);
        if (kind === 'http') {
          group('HTTP call', 'props-http');
          var auth = settings.read(bo, httpFields[5]) || 'noAuth';
          httpFields.forEach(function (f) {
            if (f.auth && f.auth !== auth) return;
            setting(f, bo, f.rerender ? function () { httpDrops(bo); } : null);
          });
          hintSecrets();
        }
      } else if (kind) {
        control('kind', isCatch(element) ? 'The message comes' : 'Started by', kind, setKindTo, null, {
          choices: isCatch(element) ? [['none', 'Through the API'], ['webhook', 'By webhook (an HTTP request)']] : [['none', 'Its event (none: the API)'], ['webhook', 'Webhook (an HTTP request)']],
          rerender: true
        });
        if (kind === 'webhook') {
          group('Webhook', 'props-webhook');
          var hauth = settings.read(bo, webhookFields[2]) || 'NONE';
          var hmac = settings.read(bo, webhookFields[7]) === 'enabled';
          webhookFields.forEach(function (f) {
            if ((f.auth && f.auth !== hauth) || (f.hmac && !hmac) || (f.catchOnly && !isCatch(element))) return;
            setting(f, bo, f.rerender ? function () { hookDrops(bo); } : null);
          });
          var message = isCatch(element) && bo.eventDefinitions[0].messageRef;
          if (message) setting(messageKeyField, message);
          hintSecrets();
        }
      } else {
        (modelerFields[element.type] || []).forEach(function (f) { setting(f); });
      }
      if (focus) {
        var back = fields.querySelector('[data-attr="' + focus + '"]');
        if (back) back.focus();
      }
    };
    var mark = function (problems) {
      var canvas = modeler.get('canvas');
      var overlays = modeler.get('overlays');
      var registry = modeler.get('elementRegistry');
      overlays.remove({ type: 'gobpm' });
      registry.getAll().forEach(function (e) { canvas.removeMarker(e.id, 'gobpm-problem'); });
      var marked = [];
      problems.forEach(function (p) {
        if (!p.element || !registry.get(p.element)) return;
        canvas.addMarker(p.element, 'gobpm-problem');
        marked.push(p.element);
        overlays.add(p.element, 'gobpm', { position: { top: -24, right: 24 }, html: badge('incident', '!', p.rule + ': ' + p.detail) });
      });
      el.dataset.problems = marked.join(' ');
    };
    var auto = el.dataset.layout === 'auto';
    Promise.all([
      fetch(el.dataset.xmlUrl, { credentials: 'same-origin' }).then(function (r) {
        if (!r.ok) throw new Error('the model could not be loaded (HTTP ' + r.status + ')');
        return r.text();
      }),
      auto ? loadScript(el.dataset.layoutScript) : null
    ])
      .then(function (got) { return auto ? window.gobpmLayoutProcess(got[0]) : got[0]; })
      .then(function (xml) { return modeler.importXML(xml); })
      .then(function () {
        fitBesidePalette(modeler.get('canvas'), el);
        modeler.get('eventBus').on('selection.changed', function (e) { show(e.newSelection[0]); });
        modeler.get('eventBus').on('commandStack.changed', function () { el.dataset.dirty = 'true'; });
        deploy.disabled = false;
        download.disabled = false;
        el.dataset.rendered = 'true';
      })
      .catch(function (err) { say('The model could not be opened: ' + (err && err.message ? err.message : err), 'error'); });
    // saved is the edited model's XML, the gobpm namespace declared
    // when the panel wrote gobpm attributes the document binds no prefix
    // for (a Camunda model keeps its own namespaces only).
    var saved = function () {
      var defs = modeler.getDefinitions();
      var gobpmAttrs = function (bo) { return !!bo && Object.keys(bo.$attrs || {}).some(function (k) { return k.indexOf('gobpm:') === 0; }); };
      // Messages (a catch event's correlation key) are no diagram elements.
      var gobpm = modeler.get('elementRegistry').getAll().some(function (e) { return gobpmAttrs(e.businessObject); }) ||
        (defs.rootElements || []).some(gobpmAttrs);
      if (gobpm && settings.prefix('gobpm') === 'gobpm') defs.$attrs['xmlns:gobpm'] = dialectNS.gobpm;
      return modeler.saveXML({ format: true });
    };
    // The browser tests read the model as Deploy and Download XML save it.
    window.gobpmModelerSaved = saved;
    download.addEventListener('click', function () {
      saved()
        .then(function (res) {
          var a = document.createElement('a');
          a.href = URL.createObjectURL(new Blob([res.xml], { type: 'application/xml' }));
          a.download = el.dataset.filename;
          a.hidden = true;
          document.body.appendChild(a);
          a.click();
          a.remove();
          setTimeout(function () { URL.revokeObjectURL(a.href); }, 60000);
        })
        .catch(function (err) { say('The model could not be saved: ' + (err && err.message ? err.message : err), 'error'); });
    });
    deploy.addEventListener('click', function () {
      deploy.disabled = true;
      saved()
        .then(function (res) {
          var body = new URLSearchParams();
          body.set('csrf', el.dataset.csrf);
          body.set('xml', res.xml);
          return fetch(el.dataset.deployUrl, { method: 'POST', credentials: 'same-origin', body: body });
        })
        .then(function (r) { return r.json().then(function (a) { return { ok: r.ok, answer: a }; }); })
        .then(function (got) {
          if (got.ok && got.answer.url) {
            location.href = got.answer.url;
            return;
          }
          var problems = got.answer.problems || [];
          mark(problems);
          say(got.answer.message + (problems.length ? ' ' + problems.map(function (p) {
            return (p.element ? p.element + ': ' : '') + p.detail;
          }).join('; ') : ''), 'error');
          deploy.disabled = false;
        })
        .catch(function (err) {
          say('The model could not be deployed: ' + (err && err.message ? err.message : err), 'error');
          deploy.disabled = false;
        });
    });
  }

  // loadScript adds one of the cockpit's own scripts once and resolves
  // when it ran.
  function loadScript(src) {
    return new Promise(function (resolve, reject) {
      var el = document.createElement('script');
      el.src = src;
      el.onload = function () { resolve(); };
      el.onerror = function () { reject(new Error('could not load ' + src)); };
      document.head.appendChild(el);
    });
  }

  // A refused form answers with its page at the action's URL; show the
  // page's own URL (the one the live region polls) so a reload is a GET.
  function canonicalURL() {
    var live = document.getElementById('live');
    var here = live && live.getAttribute('hx-get');
    if (here && here !== location.pathname + location.search && window.history && history.replaceState) {
      history.replaceState(null, '', here + location.hash);
    }
  }

  // A deployment problem's link shows its element on the refused model.
  document.addEventListener('click', function (ev) {
    var a = ev.target.closest && ev.target.closest('a.problem-link[data-element]');
    if (!a || !viewer || !container || container.dataset.rendered !== 'true') return;
    var el = viewer.get('elementRegistry').get(a.dataset.element);
    if (!el) return;
    ev.preventDefault();
    var canvas = viewer.get('canvas');
    viewer.get('elementRegistry').getAll().forEach(function (e) { canvas.removeMarker(e.id, 'gobpm-focus'); });
    canvas.addMarker(el.id, 'gobpm-focus');
    canvas.scrollToElement(el);
    container.dataset.focus = el.id;
    container.scrollIntoView({ block: 'nearest' });
  });

  // A copy button (copyID in web/templates) puts the full id it names on
  // the clipboard and says so in its title for a moment.
  document.addEventListener('click', function (ev) {
    var b = ev.target.closest && ev.target.closest('button[data-copy]');
    if (!b) return;
    ev.preventDefault();
    var done = function (msg) {
      var was = b.getAttribute('title');
      b.setAttribute('title', msg);
      b.dataset.copied = 'true';
      setTimeout(function () { b.setAttribute('title', was); delete b.dataset.copied; }, 1500);
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(b.dataset.copy).then(function () { done('Copied'); }, function () { done(b.dataset.copy); });
    } else {
      done(b.dataset.copy);
    }
  });

  // A "select all" button checks every checkbox of its name (the bulk
  // retry's incidents), or clears them when all are checked already.
  document.addEventListener('click', function (ev) {
    var b = ev.target.closest && ev.target.closest('[data-select-all]');
    if (!b) return;
    var boxes = document.querySelectorAll('input[type=checkbox][name="' + b.dataset.selectAll + '"]');
    var all = Array.prototype.every.call(boxes, function (x) { return x.checked; });
    Array.prototype.forEach.call(boxes, function (x) { x.checked = !all; });
  });

  // initTaskForm draws the opened task's Camunda Form with form-js and,
  // on Complete, validates it there and sends its values as typed JSON
  // (numbers stay numbers); the Complete button waits for the form.
  //
  // form-js buffers what is typed for 300 ms by default and commits it on
  // blur. A submit that comes sooner without a blur (a browser that does
  // not focus a clicked button, as Safari and Firefox on macOS do) then
  // missed the last keys, and any re-render of the form in those 300 ms
  // (a number field commits its initial value 300 ms after the form is
  // drawn) reset the field to the stale value. With debounce off every
  // key reaches the form's data at once: there is never input to flush.
  function initTaskForm() {
    var el = document.getElementById('task-form');
    var form = document.querySelector('[data-form-submit="task-form"]');
    if (!el || !form) return;
    var button = form.querySelector('button[type=submit]');
    var errors = form.querySelector('[data-testid="form-errors"]');
    loadScript(el.dataset.viewer)
      .then(function () {
        if (typeof window.GobpmForm !== 'function') throw new Error('the form viewer did not load');
        var fjs = new window.GobpmForm({ container: el, debounce: false });
        return fjs.importSchema(JSON.parse(el.dataset.schema), JSON.parse(el.dataset.values || '{}')).then(function () {
          form.addEventListener('submit', function (ev) {
            var res = fjs.submit();
            var bad = formProblems(fjs, res.errors || {});
            if (bad.length) {
              ev.preventDefault();
              errors.hidden = false;
              errors.textContent = 'Check ' + bad.length + ' field' + (bad.length === 1 ? '' : 's') + ' of the form before completing: ' +
                bad.join('; ') + '.';
              return;
            }
            form.querySelector('input[name=variables]').value = JSON.stringify(res.data);
          });
          button.disabled = false;
          el.dataset.rendered = 'true';
        });
      })
      .catch(function (err) {
        el.dataset.rendered = 'error';
        el.textContent = 'The form could not be drawn (' + (err && err.message ? err.message : err) + '): complete the task with JSON below.';
      });
  }

  // formProblems names each field form-js refused, by its label, with its
  // messages ("Weight (kg): Field is required"): form-js ends each message
  // with a full stop, which the sentence around them supplies once. A field
  // inside a repeated group carries its errors per row, nested.
  function formProblems(fjs, errs) {
    var registry = fjs.get('formFieldRegistry');
    var flat = function (v) {
      if (typeof v === 'string') return [v];
      var out = [];
      Object.keys(v || {}).forEach(function (k) { out = out.concat(flat(v[k])); });
      return out;
    };
    return Object.keys(errs).map(function (id) {
      var field = registry.get(id);
      var name = (field && (field.label || field.key)) || id;
      var said = flat(errs[id]).map(function (m) { return String(m).replace(/[.\s]+$/, ''); });
      return said.length ? name + ': ' + said.join(', ') : name;
    });
  }

  // A live refresh re-renders its region with every <details> closed; the
  // ones the person had opened are opened again, so a refresh never folds
  // away what they are reading or filling in. A panel is known by its id,
  // else by its data-testid and data-key (a fact's detail: its sequence
  // number); a name several closed or open panels share is not restored.
  var openPanels = null;
  function panelKey(d) {
    if (d.id) return '#' + d.id;
    var t = d.getAttribute('data-testid');
    if (!t) return '';
    var k = d.getAttribute('data-key');
    return k ? t + '/' + k : t;
  }
  function panelKeys(region, onlyOpen) {
    var seen = {};
    region.querySelectorAll(onlyOpen ? 'details[open]' : 'details').forEach(function (d) {
      var k = panelKey(d);
      if (k) seen[k] = (seen[k] || 0) + 1;
    });
    return seen;
  }
  document.addEventListener('htmx:beforeSwap', function (e) {
    var region = e.detail.target;
    if (!region || region.id !== 'live') return;
    var all = panelKeys(region, false), open = panelKeys(region, true);
    openPanels = Object.keys(open).filter(function (k) { return all[k] === 1; });
  });
  document.addEventListener('htmx:afterSwap', function (e) {
    var region = e.detail.target;
    if (!region || region.id !== 'live' || !openPanels) return;
    var keep = openPanels;
    openPanels = null;
    region.querySelectorAll('details').forEach(function (d) {
      if (keep.indexOf(panelKey(d)) >= 0) d.open = true;
    });
  });

  canonicalURL();
  document.addEventListener('htmx:afterSettle', applyState);
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', initDiagram);
    document.addEventListener('DOMContentLoaded', initHeatmap);
    document.addEventListener('DOMContentLoaded', initTaskForm);
    document.addEventListener('DOMContentLoaded', initLive);
    document.addEventListener('DOMContentLoaded', initDecision);
    document.addEventListener('DOMContentLoaded', initModeler);
  } else {
    initDiagram();
    initHeatmap();
    initTaskForm();
    initLive();
    initDecision();
    initModeler();
  }
})();
