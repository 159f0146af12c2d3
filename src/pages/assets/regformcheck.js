/*
 * regformcheck.js, as the hosted original served it to the registration forms sites pasted:
 * before such a form is sent, it checks that the form's required fields are filled and that
 * its two passwords are the same, says what is wrong, and keeps the form. Nothing else: no
 * request, no cookie, no other page is touched.
 *
 * A form is checked when it has a second password (`_password2`, the original's form) or calls
 * `regformcheck(this)` from its own onsubmit. Required: `_login`, `_email` and `_password` when
 * the form has them, and every field marked `required`.
 */
(function () {
  'use strict';
  function field(form, name) {
    return form.elements.namedItem(name);
  }
  function problem(form) {
    var missing = [];
    for (var i = 0; i < form.elements.length; i++) {
      var element = form.elements[i];
      var name = element.name || '';
      var needed = element.required || name === '_login' || name === '_email' || name === '_password';
      if (needed && element.type !== 'hidden' && String(element.value).trim() === '') missing.push(element.getAttribute('title') || name.replace(/^_/, ''));
    }
    if (missing.length > 0) return 'Please fill in: ' + missing.join(', ') + '.';
    var first = field(form, '_password');
    var second = field(form, '_password2');
    if (first && second && first.value !== second.value) return 'The two passwords are not the same.';
    return '';
  }
  function regformcheck(form) {
    var said = problem(form);
    if (said === '') return true;
    window.alert(said);
    return false;
  }
  window.regformcheck = regformcheck;
  document.addEventListener(
    'submit',
    function (event) {
      var form = event.target;
      if (!form || !form.elements || !field(form, '_password2')) return;
      if (!regformcheck(form)) event.preventDefault();
    },
    true,
  );
})();
