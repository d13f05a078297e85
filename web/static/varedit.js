// gobpm cockpit: the instance page's variable editor. A variable's "edit"
// link loads the page with its editor open; here it swaps the live region
// instead (htmx), keeping the diagram and the scroll, and puts the focus
// in the value. The editor and the "add variable" form (varForm in
// web/templates) are checked by their type before they are sent: a number
// field refuses "abc", a JSON field refuses invalid JSON naming the line
// and column. The server checks the same again (everything works without
// this script). Listeners sit on the document, so what a live refresh
// swaps in is covered too.
(function () {
  'use strict';

  var numberRE = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/;

  // position names index i of s as "line L, column C" (from 1).
  function position(s, i) {
    var before = s.slice(0, i);
    var nl = before.lastIndexOf('\n');
    return 'line ' + (before.split('\n').length) + ', column ' + (Array.from(before.slice(nl + 1)).length + 1);
  }

  // jsonProblem returns why s is not one JSON value, with where ("" when
  // it is one). A small reader of its own: JSON.parse does not always say
  // where it stopped.
  function jsonProblem(s) {
    var i = 0;
    function ws() { while (i < s.length && ' \t\r\n'.indexOf(s[i]) >= 0) i++; }
    function fail(what) { throw new Error('The value is not valid JSON at ' + position(s, i) + ': ' + what + '.'); }
    function literal(word) {
      if (s.slice(i, i + word.length) !== word) fail('expected ' + word);
      i += word.length;
    }
    function string() {
      i++; // the opening quote
      while (i < s.length && s[i] !== '"') {
        if (s.charCodeAt(i) < 0x20) fail('a control character in a string');
        if (s[i] === '\\') {
          i++;
          if (s[i] === 'u') {
            if (!/^[0-9a-fA-F]{4}$/.test(s.slice(i + 1, i + 5))) fail('expected four hex digits after \\u');
            i += 4;
          } else if ('"\\/bfnrt'.indexOf(s[i]) < 0 || i >= s.length) {
            fail('an invalid escape in a string');
          }
        }
        i++;
      }
      if (i >= s.length) fail('the string is not closed');
      i++;
    }
    function number() {
      var m = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
      m.lastIndex = i;
      var got = m.exec(s);
      if (!got || got[0] === '-' || got[0] === '') fail('expected a number');
      i += got[0].length;
    }
    function members(close, member) {
      i++; // the opening bracket
      ws();
      if (s[i] === close) { i++; return; }
      for (;;) {
        member();
        ws();
        if (s[i] === close) { i++; return; }
        if (s[i] !== ',') fail(i >= s.length ? 'it ends too early' : "expected ',' or '" + close + "'");
        i++;
      }
    }
    function value() {
      ws();
      var c = s[i];
      if (c === '{') {
        members('}', function () {
          ws();
          if (s[i] !== '"') fail('expected a member name in double quotes');
          string();
          ws();
          if (s[i] !== ':') fail("expected ':'");
          i++;
          value();
        });
      } else if (c === '[') {
        members(']', value);
      } else if (c === '"') {
        string();
      } else if (c === 't') {
        literal('true');
      } else if (c === 'f') {
        literal('false');
      } else if (c === 'n') {
        literal('null');
      } else if (c === '-' || (c >= '0' && c <= '9')) {
        number();
      } else {
        fail(i >= s.length ? 'it ends too early' : 'expected a value');
      }
    }
    try {
      if (s.trim() === '') return 'The value is empty: write a JSON value such as {"a": 1} or [1, 2].';
      value();
      ws();
      if (i < s.length) fail('there is more text after the value');
      return '';
    } catch (e) {
      return e.message;
    }
  }

  // problem says why a form's value is not of its type ("" when it is).
  function problem(form) {
    var name = form.elements.name, type = form.elements.type.value, value = form.elements.value.value;
    if (name && name.value.trim() === '') return 'Name the variable.';
    switch (type) {
      case 'number':
        return numberRE.test(value.trim()) ? '' : JSON.stringify(value.trim()) + ' is not a number: write one such as 42, -3.5 or 1e6.';
      case 'boolean':
        return /^(true|false)$/i.test(value.trim()) ? '' : JSON.stringify(value.trim()) + ' is not a boolean: write true or false.';
      case 'json':
        return jsonProblem(value);
    }
    return '';
  }

  function show(form, text) {
    var out = form.querySelector('.field-error');
    out.textContent = text;
    out.hidden = !text;
    form.elements.value.setAttribute('aria-invalid', text ? 'true' : 'false');
  }

  function isVarForm(el) {
    return el && el.matches && el.matches('form[data-var-form]');
  }

  document.addEventListener('click', function (e) {
    var a = e.target && e.target.closest ? e.target.closest('a[data-var-edit]') : null;
    var live = document.getElementById('live');
    if (!a || !live || typeof window.htmx === 'undefined' || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    window.htmx.ajax('GET', a.getAttribute('href'), { target: live, swap: 'innerHTML' }).then(function () {
      var field = document.querySelector('#var-edit [name="value"]');
      if (field) {
        field.focus();
        field.scrollIntoView({ block: 'nearest' });
      }
    });
  });

  document.addEventListener('submit', function (e) {
    var form = e.target;
    if (!isVarForm(form)) return;
    var text = problem(form);
    show(form, text);
    if (text) {
      e.preventDefault();
      form.elements.value.focus();
    }
  });

  // A changed value or type clears the message until the next Save.
  ['input', 'change'].forEach(function (kind) {
    document.addEventListener(kind, function (e) {
      var form = e.target && e.target.form;
      if (isVarForm(form) && !form.querySelector('.field-error').hidden) show(form, '');
    });
  });
})();
