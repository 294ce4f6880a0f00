'use strict';
// Starts Swagger UI (/docs) or ReDoc (/redoc) from scripts served by this server. The schema
// is fetched with the API key the web page keeps in this tab (sessionStorage), because
// /openapi.json needs the key like the rest of the API.

const KEY_STORAGE = 'rs-api-key';

function storedKey() {
  try { return sessionStorage.getItem(KEY_STORAGE) || ''; } catch { return ''; }
}

function showMessage(text) {
  const message = document.getElementById('docs-message');
  message.textContent = text + ' ';
  const link = document.createElement('a');
  link.href = '/';
  link.textContent = 'Open the web page to enter the API key, then come back.';
  message.appendChild(link);
  message.hidden = false;
}

async function loadSchema(key) {
  const headers = key ? { 'X-API-Key': key } : {};
  const response = await fetch('/openapi.json', { headers });
  if (response.status === 401) {
    showMessage(key ? 'The API key was rejected.' : 'This server needs an API key.');
    return null;
  }
  if (!response.ok) {
    showMessage(`The API schema could not be loaded (HTTP ${response.status}).`);
    return null;
  }
  return response.json();
}

async function start() {
  const key = storedKey();
  const spec = await loadSchema(key);
  if (!spec) return;
  const element = document.getElementById('docs');
  if (document.body.dataset.viewer === 'redoc') {
    window.Redoc.init(spec, { disableSearch: false }, element);
    return;
  }
  const ui = window.SwaggerUIBundle({
    spec,
    domNode: element,
    deepLinking: true,
    // calls made with "Try it out" carry the key as well
    requestInterceptor: (request) => {
      if (key && !request.headers['X-API-Key']) request.headers['X-API-Key'] = key;
      return request;
    },
  });
  if (key && spec.components && spec.components.securitySchemes) {
    ui.preauthorizeApiKey('ApiKey', key);
  }
}

start();
