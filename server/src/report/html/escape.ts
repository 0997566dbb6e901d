/**
 * Escaping for the HTML report. Every string in a report can come from a model file (feature
 * names, class labels, paths, messages quoting them), and a model file is untrusted input: a
 * feature named `</script><script>...` must stay text. Pure (no node: imports): the webview's
 * client bundle uses it too.
 */

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for element content and quoted attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);
}

/**
 * JSON for a `<script type="application/json">` block. Inside a script element the HTML parser
 * only looks for `</script` (and `<!--`), so escaping `<` and `>` as \u003c / \u003e keeps any
 * string from ending the element; `&` is escaped too so that the text means the same if it is
 * ever read as HTML, and U+2028/U+2029 so that the text is also valid JavaScript source.
 * `JSON.parse` of the element's textContent gives back exactly `value`.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * A trusted script's source (Chart.js, media/report.js) inlined in a `<script>` element: the only
 * sequences that could end the element or switch the parser's state are `</script` and `<!--`,
 * which in JavaScript can only occur inside strings, regular expressions or comments, where
 * `<\/script` and `<\!--` mean the same.
 */
export function inlineScriptSource(source: string): string {
  return source.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** A trusted stylesheet inlined in a `<style>` element (same reasoning; CSS has no such sequence outside strings and comments). */
export function inlineStyleSource(source: string): string {
  return source.replace(/<\/(style)/gi, '<\\/$1');
}

/** Nonces are put in attributes and in the CSP unescaped: only base64 / base64url characters are accepted. */
export function checkNonce(nonce: string): string {
  if (!/^[A-Za-z0-9+/_-]{16,}={0,2}$/.test(nonce)) throw new Error('the report needs a nonce of at least 16 base64 characters');
  return nonce;
}
