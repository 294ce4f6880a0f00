'use strict';
// Research Studio browser client.
// Everything shown from the server (questions, sources, model output) is untrusted:
// the DOM is built with createElement + textContent only, never from HTML strings.

const KEY_STORAGE = 'rs-api-key';
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
const ACTIVE = new Set(['queued', 'running', 'awaiting_clarification', 'awaiting_plan_review']);
const MAX_EVENTS = 200;
const PAGE_SIZE = 20;
const REFRESH_GAP_MS = 500; // at most ~2 session fetches per second
const MAX_RECONNECT_MS = 8000;

const MARKS = {
  '✓✓': ['mark-cross', 'Cross-validated by independent sources'],
  '✓': ['mark-verified', 'Verified against the source span'],
  '⚠': ['mark-single', 'Single source only'],
};
// Citation groups ([S1], [S1, S3]) or claim markers; ✓✓ comes before ✓ so it wins.
const TOKEN_RE = /\[\s*(S\d+(?:\s*[,;]\s*S\d+)*)\s*\]|(✓✓|✓|⚠\uFE0F?)/g;

const state = {
  sessionId: null,
  session: null,
  lastEventId: null,
  stream: null, // AbortController of the running stream loop
  wake: null, // cuts a reconnect wait short
  refreshTimer: null,
  refreshSeq: 0,
  lastRefreshAt: 0,
  reportFor: null,
  sources: new Map(),
  clarifyKey: null,
  answeredKey: null,
  plan: null, // the pending plan the review panel was built from
  planKey: null, // round + sub-questions of that plan: rows are rebuilt only when it changes
  planShownKey: null, // planKey + the server's error message, as last shown
  planSentKey: null, // planShownKey when a decision was accepted: stay hidden until it changes
  planServerError: null,
  historyOffset: 0,
  keyWaiters: [],
  sourceOpener: null,
};

const $ = (id) => document.getElementById(id);

// ---------- small DOM helpers ----------

function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null) continue;
    if (key === 'className') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key === 'value') node.value = value;
    else node.setAttribute(key, String(value));
  }
  // append() turns strings into text nodes, so this is safe for data.
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function cssToken(value) {
  return String(value || 'unknown').replace(/[^A-Za-z0-9_-]/g, '');
}

function badge(status) {
  return setBadge(el('span'), status || 'unknown');
}

function setBadge(node, status) {
  node.textContent = status;
  node.className = `badge status-${cssToken(status)}`;
  return node;
}

const num = (value) => (Number.isFinite(value) ? String(value) : '0');
const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const count = (value) => (Array.isArray(value) ? value.length : num(value));

function brief(value, max = 120) {
  const text = value !== null && typeof value === 'object' ? JSON.stringify(value) : String(value ?? '—');
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function formatTime(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? String(iso || '') : date.toLocaleString();
}

// One banner for all API errors; an empty message hides it.
function showError(message = '') {
  $('error').textContent = message;
  $('error').hidden = !message;
}

const clearError = () => showError('');

// ---------- API access ----------

class ApiError extends Error {
  constructor(status, message, detail = null) {
    super(message);
    this.status = status;
    this.detail = detail; // the body's "detail", e.g. a list of validation issues
  }
}

function getKey() {
  try { return sessionStorage.getItem(KEY_STORAGE) || ''; } catch { return ''; }
}

function setKey(value) {
  try { sessionStorage.setItem(KEY_STORAGE, value); } catch { /* storage off: key won't persist */ }
}

// Resolves once the user saves a key; concurrent 401s share one prompt.
function waitForKey(message) {
  $('key-message').textContent = message;
  $('key-prompt').hidden = false;
  $('api-key').focus();
  return new Promise((resolve) => state.keyWaiters.push(resolve));
}

function onSaveKey(event) {
  event.preventDefault();
  setKey($('api-key').value.trim());
  $('api-key').value = '';
  $('key-prompt').hidden = true;
  state.keyWaiters.splice(0).forEach((resolve) => resolve());
}

// fetch() with the API key; on 401 asks for a key and retries.
async function apiFetch(path, options = {}) {
  for (;;) {
    const headers = new Headers(options.headers || {});
    const key = getKey();
    if (key) headers.set('X-API-Key', key);
    const response = await fetch(path, { ...options, headers });
    if (response.status !== 401) return response;
    await waitForKey(key ? 'That API key was rejected. Please enter a valid key.' : 'This server needs an API key.');
  }
}

async function apiJson(path, { method = 'GET', body, signal } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await apiFetch(path, {
    method, headers, signal, body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    throw new ApiError(response.status, describeError(data, response.status), data && typeof data === 'object' ? data.detail : null);
  }
  return data;
}

// FastAPI errors: {"detail": "text"} or {"detail": [{"loc": [...], "msg": "..."}]}.
function describeError(body, status) {
  const detail = body && typeof body === 'object' ? body.detail : null;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return detail.map(formatIssue).join('; ');
  if (detail) return JSON.stringify(detail);
  return `Request failed (HTTP ${status})`;
}

function formatIssue(issue) {
  if (!issue || typeof issue !== 'object') return String(issue);
  const loc = Array.isArray(issue.loc) ? issue.loc.filter((part) => part !== 'body').join('.') : '';
  const msg = issue.msg ?? JSON.stringify(issue);
  return loc ? `${loc}: ${msg}` : String(msg);
}

function sessionPath(id, suffix = '') {
  return `/api/research/sessions/${encodeURIComponent(id)}${suffix}`;
}

// ---------- server-sent events over fetch (EventSource cannot send X-API-Key) ----------

function parseSseBlock(block) {
  let id = null;
  let kind = 'message';
  const data = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue; // ":" lines are keep-alives
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'id') id = value;
    else if (field === 'event') kind = value;
    else if (field === 'data') data.push(value);
  }
  if (id === null && data.length === 0) return null;
  return { id, kind, data: data.join('\n') };
}

// Reads the stream until it closes; returns true if a terminal event arrived.
async function readEventStream(body, onEvent) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return false;
    // Normalise CRLF/CR; a lone trailing CR may be the first half of CRLF, so keep it.
    buffer = (buffer + decoder.decode(value, { stream: true })).replace(/\r\n|\r(?!$)/g, '\n');
    let cut;
    while ((cut = buffer.indexOf('\n\n')) >= 0) {
      const event = parseSseBlock(buffer.slice(0, cut));
      buffer = buffer.slice(cut + 2);
      if (event && onEvent(event)) {
        reader.cancel().catch(() => {});
        return true;
      }
    }
  }
}

function handleStreamEvent(event) {
  const id = Number.parseInt(event.id, 10);
  if (Number.isFinite(id)) {
    if (state.lastEventId !== null && id <= state.lastEventId) return false; // replayed duplicate
    state.lastEventId = id;
  }
  if (!event.data && event.kind === 'message') return false;
  let data;
  try { data = event.data ? JSON.parse(event.data) : {}; } catch { data = { raw: event.data }; }
  if (data === null || typeof data !== 'object') data = { value: data };
  appendEvent(event.kind, summarizeEvent(event.kind, data));
  scheduleRefresh();
  return event.kind === 'status' && TERMINAL.has(data.status);
}

function summarizeEvent(kind, d) {
  switch (kind) {
    case 'status': return brief(d.status);
    case 'stage': return d.tokens != null ? `${brief(d.stage)} (tokens ${brief(d.tokens)})` : brief(d.stage);
    case 'analysis': return `mode ${brief(d.mode)}`;
    case 'plan': return `${count(d.sub_questions)} sub-questions planned`;
    case 'sub_question': return `${brief(d.sub_question_id)} → ${brief(d.status)}`;
    case 'iteration':
      return `${brief(d.sub_question_id)} iteration ${brief(d.iteration)}: findings ${brief(d.findings)}, sources ${brief(d.sources)}`;
    case 'findings': return `${count(d.findings)} new findings`;
    case 'sources': return `${count(d.sources)} new sources`;
    case 'gaps': return `round ${brief(d.round)}: ${count(d.gaps)} gaps → ${brief(d.decision)}`;
    case 'trust': return `${brief(d.claims)} claims checked`;
    case 'clarification': return `${count(d.questions)} questions (round ${brief(Number(d.round) + 1)})`;
    case 'plan_review': {
      const text = `plan of ${count(d.sub_questions)} sub-questions to review (round ${brief(Number(d.round) + 1)})`;
      return d.error ? `${text}; refused: ${brief(d.error, 160)}` : text;
    }
    case 'completed': return brief(d.status ?? 'completed');
    case 'error': return brief(d.message ?? 'error', 200);
    default: return brief(d);
  }
}

function appendEvent(kind, summary) {
  const list = $('events');
  list.append(el('li', { className: `event event-${cssToken(kind)}`, text: `${kind}: ${summary}` }));
  while (list.children.length > MAX_EVENTS) list.firstElementChild.remove();
  const box = list.parentElement;
  box.scrollTop = box.scrollHeight; // keep the newest entry in view
}

// One connection attempt. stop=true means: do not reconnect.
async function connectOnce(id, signal) {
  const headers = { Accept: 'text/event-stream' };
  if (state.lastEventId !== null) headers['Last-Event-ID'] = String(state.lastEventId);
  let received = 0;
  try {
    const response = await apiFetch(sessionPath(id, '/events'), { headers, signal });
    if (response.status === 404) return { stop: true, received };
    if (!response.ok || !response.body) return { stop: false, received };
    const terminal = await readEventStream(response.body, (event) => {
      received += 1;
      return handleStreamEvent(event);
    });
    return { stop: terminal, received };
  } catch {
    return { stop: signal.aborted, received };
  }
}

function pause(ms) {
  return new Promise((resolve) => {
    const finish = () => {
      clearTimeout(timer);
      if (state.wake === finish) state.wake = null;
      resolve();
    };
    const timer = setTimeout(finish, ms);
    state.wake = finish;
  });
}

// Streams until a terminal event; reconnects (with Last-Event-ID) when the stream drops.
async function streamSession(id) {
  stopStream();
  const controller = new AbortController();
  state.stream = controller;
  let delay = 1000;
  while (!controller.signal.aborted) {
    const { stop, received } = await connectOnce(id, controller.signal);
    if (stop || controller.signal.aborted) break;
    // The stream ended early: the session may have finished meanwhile.
    const session = await refreshSession(id);
    if (controller.signal.aborted || (session && TERMINAL.has(session.status))) break;
    if (received > 0) delay = 1000;
    await pause(delay);
    delay = Math.min(delay * 2, MAX_RECONNECT_MS);
  }
  if (state.stream === controller) state.stream = null;
  if (state.sessionId === id) scheduleRefresh();
}

function stopStream() {
  if (state.stream) state.stream.abort();
  state.stream = null;
  if (state.wake) state.wake();
}

// After a clarification answer the server resumes the same session.
function ensureStreaming(id) {
  if (state.stream && !state.stream.signal.aborted) {
    if (state.wake) state.wake();
  } else {
    streamSession(id);
  }
}

// ---------- live view ----------

function scheduleRefresh() {
  if (state.refreshTimer || !state.sessionId) return;
  const id = state.sessionId;
  const wait = Math.max(0, REFRESH_GAP_MS - (Date.now() - state.lastRefreshAt));
  state.refreshTimer = setTimeout(() => {
    state.refreshTimer = null;
    if (state.sessionId === id) refreshSession(id);
  }, wait);
}

async function refreshSession(id) {
  const seq = ++state.refreshSeq;
  state.lastRefreshAt = Date.now();
  try {
    const session = await apiJson(sessionPath(id));
    // Ignore answers for a session we left, or older than a newer answer.
    if (state.sessionId !== id || seq !== state.refreshSeq) return session;
    const wasActive = state.session !== null && !TERMINAL.has(state.session.status);
    renderSession(session);
    if (wasActive && TERMINAL.has(session.status)) loadHistory();
    if (session.status === 'completed' && state.reportFor !== id) loadReport(id);
    return session;
  } catch (err) {
    if (state.sessionId === id) showError(`Could not load session: ${err.message}`);
    return null;
  }
}

function renderSession(session) {
  state.session = session;
  const status = session.status || 'unknown';
  const progress = session.progress || {};
  $('live-query').textContent = session.query || '';
  setBadge($('status'), status);
  $('stage').textContent = progress.stage || session.stage || '—';
  $('live-mode').textContent = session.mode || '—';
  $('counts').textContent = `findings ${num(progress.findings)} · sources ${num(progress.sources)}`
    + ` · gap rounds ${num(progress.gap_rounds)} · tokens ${num(progress.tokens)}`;
  $('sub-questions').replaceChildren(...(progress.sub_questions || []).map(subQuestionItem));
  $('cancel').hidden = !ACTIVE.has(status);
  renderSessionError(session);
  renderClarification(status === 'awaiting_clarification' ? (session.pending_clarification || {}) : null);
  renderPlanReview(status === 'awaiting_plan_review' ? (session.pending_plan || {}) : null);
}

function renderSessionError(session) {
  const box = $('session-error');
  const message = session.error || (session.status === 'failed' ? 'The research run failed.' : '');
  box.textContent = message ? `Error: ${message}` : '';
  box.hidden = !message;
}

function subQuestionItem(sq) {
  const status = sq.status || 'pending';
  const meta = [`iterations ${num(sq.iterations)}`, `findings ${num(sq.findings)}`, `sources ${num(sq.sources)}`];
  if (Number.isFinite(sq.priority)) meta.push(`priority ${sq.priority.toFixed(2)}`);
  return el('li', { className: 'sub-question', 'data-id': sq.sub_question_id },
    el('div', { className: 'sq-head' },
      el('span', { className: 'sq-id', text: sq.sub_question_id || '?' }), ' ', badge(status)),
    el('p', { className: 'sq-text', text: sq.question_text || '' }),
    el('p', { className: 'sq-meta', text: meta.join(' · ') }));
}

function renderClarification(pending) {
  const panel = $('clarification');
  if (!pending) {
    panel.hidden = true;
    state.clarifyKey = null;
    return;
  }
  const questions = Array.isArray(pending.questions) ? pending.questions : [];
  const key = JSON.stringify([pending.round, questions]);
  if (key !== state.clarifyKey) {
    // Only rebuild on a new round, so the user's half-typed answer survives refreshes.
    state.clarifyKey = key;
    $('clarification-questions').replaceChildren(...questions.map((q) => el('li', { text: String(q) })));
    $('clarification-answer').value = '';
    const info = [];
    if (pending.round != null) info.push(`round ${brief(Number(pending.round) + 1)}`);
    if (Number.isFinite(pending.coverage)) info.push(`coverage ${Math.round(pending.coverage * 100)}%`);
    if (Array.isArray(pending.sources) && pending.sources.length) info.push(`${pending.sources.length} sources so far`);
    $('clarification-info').textContent = info.join(' · ');
  }
  // Stay hidden after answering until the server moves on.
  panel.hidden = key === state.answeredKey;
}

// POSTs an action for the open session, then keeps streaming: the server goes on
// with the same session (after an answer) or ends it with a "cancelled" status.
async function postAction(suffix, body, buttons, what, onError = showError) {
  const id = state.sessionId;
  if (!id) return false;
  buttons.forEach((b) => { b.disabled = true; });
  try {
    await apiJson(sessionPath(id, suffix), { method: 'POST', body });
    clearError();
    ensureStreaming(id);
    scheduleRefresh();
    return true;
  } catch (err) {
    onError(`Could not ${what}: ${err.message}`, err);
    return false;
  } finally {
    buttons.forEach((b) => { b.disabled = false; });
  }
}

async function sendClarification(answer) {
  if (!answer.trim()) return showError('Please type an answer, or use "Skip / finish clarifying".');
  const key = state.clarifyKey;
  const buttons = [$('send-answer'), $('end-clarification')];
  if (!(await postAction('/clarification', { answer }, buttons, 'send the answer'))) return undefined;
  state.answeredKey = key;
  $('clarification').hidden = true;
  return appendEvent('clarification', answer === '/end' ? 'skipped' : 'answer sent');
}

const onCancel = () => postAction('/cancel', undefined, [$('cancel')], 'cancel');

// ---------- plan review ----------
// With config.review_plan the server stops after planning ("awaiting_plan_review") and
// waits for a decision: approve the plan, send an edited list, or ask for a new plan.

let planRowSeq = 0;

function renderPlanReview(pending) {
  const panel = $('plan-review');
  if (!pending) {
    // planKey is kept: if the same plan comes back (a refused decision), the edits survive.
    panel.hidden = true;
    return;
  }
  const subQuestions = Array.isArray(pending.sub_questions) ? pending.sub_questions : [];
  const key = JSON.stringify([pending.round, subQuestions]);
  if (key !== state.planKey) {
    // Only rebuild for a new plan, so edits in progress survive refreshes.
    state.planKey = key;
    state.plan = pending;
    state.planServerError = null;
    fillPlanRows(subQuestions);
    $('replan-note').value = '';
    showPlanError('');
    $('plan-review-info').textContent = planInfo(pending);
  }
  const serverError = pending.error ? String(pending.error) : null;
  if (serverError !== state.planServerError) {
    state.planServerError = serverError;
    if (serverError) showPlanError(`The last decision was refused: ${serverError}`);
  }
  state.planShownKey = JSON.stringify([key, serverError]);
  // Stay hidden after deciding until the server moves on.
  panel.hidden = state.planShownKey === state.planSentKey;
}

function planInfo(pending) {
  const info = [];
  if (pending.round != null) info.push(`round ${brief(Number(pending.round) + 1)}`);
  if (pending.strategy) info.push(`strategy ${brief(pending.strategy)}`);
  if (pending.path) info.push(`${brief(pending.path)} planner`);
  if (Number.isFinite(pending.max_sub_questions)) info.push(`at most ${pending.max_sub_questions} sub-questions`);
  return info.join(' · ');
}

function maxSubQuestions() {
  const max = state.plan && state.plan.max_sub_questions;
  return Number.isFinite(max) && max > 0 ? max : Infinity;
}

const planRowNodes = () => [...$('plan-rows').querySelectorAll('.plan-row')];

function fillPlanRows(subQuestions) {
  $('plan-rows').replaceChildren(...subQuestions.map((sq) => planRow(sq)));
  updatePlanRows();
}

function roundPriority(value) {
  return Number.isFinite(value) ? String(Math.round(value * 100) / 100) : '0.5';
}

// One editable row; sq is a planned sub-question, or null for a new one.
function planRow(sq) {
  planRowSeq += 1;
  const n = planRowSeq;
  const original = sq && Number.isFinite(sq.priority) ? sq.priority : 0.5;
  const shown = roundPriority(original);
  const meta = [];
  if (sq) {
    if (sq.strategy) meta.push(`strategy ${brief(sq.strategy)}`);
    if (Number.isFinite(sq.iteration_budget)) meta.push(`up to ${sq.iteration_budget} iterations`);
    if (Number.isFinite(sq.cost_budget_usd)) meta.push(`budget $${sq.cost_budget_usd.toFixed(2)}`);
  } else {
    meta.push('new sub-question');
  }
  return el('li', { className: sq ? 'plan-row' : 'plan-row plan-row-new', 'data-id': sq && sq.id != null ? sq.id : '' },
    el('div', { className: 'plan-row-head' },
      el('label', { for: `plan-q-${n}`, className: 'plan-label' }),
      el('span', { className: 'sq-id', text: sq && sq.id != null ? String(sq.id) : 'new' })),
    el('textarea', {
      id: `plan-q-${n}`, className: 'plan-question', rows: 2, maxlength: 1000, value: sq ? String(sq.question ?? '') : '',
    }),
    el('div', { className: 'plan-row-controls' },
      el('label', { for: `plan-p-${n}`, text: 'Priority' }),
      el('input', {
        type: 'number', id: `plan-p-${n}`, className: 'plan-priority', min: 0, max: 1, step: 0.05,
        value: shown, 'data-shown': shown, 'data-original': original,
      }),
      el('button', { type: 'button', className: 'small plan-remove' })),
    sq && sq.rationale ? el('p', { className: 'sq-meta plan-rationale', text: String(sq.rationale) }) : null,
    el('p', { className: 'sq-meta', text: meta.join(' · ') }));
}

// Numbers the rows' labels and enforces the size limit on "Add sub-question".
function updatePlanRows() {
  const rows = planRowNodes();
  rows.forEach((row, i) => {
    row.querySelector('.plan-label').textContent = `Sub-question ${i + 1}`;
    const remove = row.querySelector('.plan-remove');
    remove.textContent = 'Remove';
    remove.setAttribute('aria-label', `Remove sub-question ${i + 1}`);
  });
  const add = $('add-sub-question');
  const max = maxSubQuestions();
  add.disabled = rows.length >= max;
  add.title = Number.isFinite(max) ? `At most ${max} sub-questions` : '';
}

function showPlanError(message) {
  $('plan-review-error').textContent = message;
  $('plan-review-error').hidden = !message;
}

function clearPlanInvalid() {
  for (const node of $('plan-rows').querySelectorAll('[aria-invalid]')) node.removeAttribute('aria-invalid');
}

function markPlanInvalid(index, field) {
  const row = planRowNodes()[index];
  if (!row) return;
  const node = row.querySelector(field === 'priority' ? '.plan-priority' : '.plan-question');
  node.setAttribute('aria-invalid', 'true');
}

function readPlanRow(row) {
  const input = row.querySelector('.plan-priority');
  // An untouched priority is sent as planned, not as its rounded display.
  const priority = input.value === input.dataset.shown ? Number(input.dataset.original) : input.valueAsNumber;
  return { id: row.dataset.id || null, question: row.querySelector('.plan-question').value.trim(), priority };
}

function planUnchanged(rows) {
  const planned = state.plan && Array.isArray(state.plan.sub_questions) ? state.plan.sub_questions : [];
  return rows.length === planned.length && rows.every((row, i) => row.id === (planned[i].id ?? null)
    && row.question === String(planned[i].question ?? '').trim()
    && row.priority === (Number.isFinite(planned[i].priority) ? planned[i].priority : 0.5));
}

function planButtons() {
  return [$('approve-plan'), $('replan'), $('add-sub-question'), $('reset-plan'),
    ...$('plan-rows').querySelectorAll('.plan-remove')];
}

// A refused decision: the message in the panel, the rows it names marked, the edits kept.
function onPlanError(message, err) {
  showPlanError(message);
  const issues = err && Array.isArray(err.detail) ? err.detail : [];
  for (const issue of issues) {
    const loc = issue && Array.isArray(issue.loc) ? issue.loc : [];
    const at = loc.indexOf('sub_questions');
    if (at >= 0 && Number.isInteger(loc[at + 1])) markPlanInvalid(loc[at + 1], loc[at + 2]);
  }
  if (err && err.status === 409) scheduleRefresh(); // no review pending any more
}

async function sendPlanDecision(body, what, done) {
  const key = state.planShownKey;
  showPlanError('');
  const ok = await postAction('/plan', body, planButtons(), what, onPlanError);
  updatePlanRows();
  if (!ok) return;
  state.planSentKey = key;
  $('plan-review').hidden = true;
  appendEvent('plan_review', done);
}

function onApprovePlan() {
  clearPlanInvalid();
  const rows = planRowNodes().map(readPlanRow);
  const bad = rows.findIndex((row) => !Number.isFinite(row.priority) || row.priority < 0 || row.priority > 1);
  if (bad >= 0) {
    markPlanInvalid(bad, 'priority');
    showPlanError(`The priority of sub-question ${bad + 1} must be a number from 0 to 1.`);
    planRowNodes()[bad].querySelector('.plan-priority').focus();
    return undefined;
  }
  if (planUnchanged(rows)) return sendPlanDecision({ action: 'approve' }, 'start the research', 'plan approved');
  return sendPlanDecision({ action: 'edit', sub_questions: rows }, 'start the research with this plan',
    `edited plan sent (${rows.length} sub-questions)`);
}

function onReplan() {
  const note = $('replan-note').value.trim();
  if (!note) {
    showPlanError('Please say what the new plan should do differently.');
    $('replan-note').focus();
    return undefined;
  }
  clearPlanInvalid();
  return sendPlanDecision({ action: 'replan', note }, 'ask for a new plan', 'new plan requested');
}

function onAddPlanRow() {
  if (planRowNodes().length >= maxSubQuestions()) return;
  const row = planRow(null);
  $('plan-rows').append(row);
  updatePlanRows();
  row.querySelector('.plan-question').focus();
}

function onResetPlan() {
  const planned = state.plan && Array.isArray(state.plan.sub_questions) ? state.plan.sub_questions : [];
  fillPlanRows(planned);
  showPlanError('');
}

function onPlanRowsClick(event) {
  const button = event.target.closest('.plan-remove');
  if (!button) return;
  const row = button.closest('.plan-row');
  const next = row.nextElementSibling || row.previousElementSibling;
  row.remove();
  updatePlanRows();
  if (next) next.querySelector('.plan-remove').focus();
  else $('add-sub-question').focus();
}

// ---------- report ----------

async function loadReport(id, attempt = 0) {
  state.reportFor = id;
  try {
    const result = await apiJson(sessionPath(id, '/results'));
    if (state.sessionId === id) renderReport(result);
  } catch (err) {
    if (state.sessionId !== id) return;
    // 409 = results not written yet; the status may have just flipped.
    if (err.status === 409 && attempt < 5) setTimeout(() => state.sessionId === id && loadReport(id, attempt + 1), 1000);
    else showError(`Could not load the report: ${err.message}`);
  }
}

function renderReport(result) {
  const sources = Array.isArray(result.sources) ? result.sources : [];
  state.sources = new Map(sources.map((s) => [String(s.sid), s]));
  state.claims = Array.isArray(result.claims) ? result.claims : [];
  state.reportSessionId = result.session_id || state.sessionId;
  $('report-meta').textContent = reportMeta(result);
  $('report-body').replaceChildren(...renderMarkdown(String(result.report_markdown || '')));
  $('sources').replaceChildren(...sources.map(sourceItem));
  $('report').hidden = false;
}

// A finished report as a file: fetched with the API key, then saved by the browser.
async function onExport(event) {
  const button = event.target.closest('.export');
  if (!button || !state.reportSessionId) return;
  const format = button.dataset.format;
  $('export-error').textContent = '';
  button.disabled = true;
  try {
    const path = `/api/research/sessions/${encodeURIComponent(state.reportSessionId)}/export?format=${format}`;
    const response = await apiFetch(path);
    if (!response.ok) {
      const data = await response.json().catch(() => null);
      throw new ApiError(response.status, describeError(data, response.status));
    }
    const url = URL.createObjectURL(await response.blob());
    const link = el('a', { href: url, download: `report-${state.reportSessionId}.${format}` });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  } catch (error) {
    $('export-error').textContent = `Export failed: ${error.message}`;
  } finally {
    button.disabled = false;
  }
}

function reportMeta(result) {
  const metrics = result.metrics || {};
  const usage = result.usage || {};
  const confidence = Number.isFinite(metrics.overall_confidence)
    ? `${Math.round(metrics.overall_confidence * 100)}%` : '—';
  const parts = [
    `confidence ${confidence}`,
    `hallucination score ${fixed(metrics.hallucination_score, 2)}`,
    `LLM calls ${Number.isFinite(usage.llm_calls) ? usage.llm_calls : '—'}`,
    `wall time ${fixed(usage.wall_s, 1)} s`,
  ];
  if (Array.isArray(result.claims)) parts.push(`claims ${result.claims.length}`);
  return parts.join(' · ');
}

function sourceItem(source) {
  return el('li', { className: source.cited ? 'source cited' : 'source uncited' },
    el('button', {
      type: 'button', className: 'source-open', 'data-sid': source.sid, title: `Show source ${source.sid}`, text: source.sid,
    }),
    ' ',
    el('span', { className: 'source-title', text: source.title || '(untitled)' }),
    source.location ? el('span', { className: 'source-location', text: source.location }) : null,
    source.cited ? null : el('span', { className: 'source-flag', text: 'not cited' }));
}

// Tiny Markdown subset: headings, paragraphs, bullet/numbered lists (an indented item
// nests), rules, **bold**, and fenced code (the example a claim introduces, indented under
// its list item or not).
function renderMarkdown(markdown) {
  const blocks = [];
  let paragraph = [];
  let list = null;
  let code = null; // {fence, lines, indent, inItem} while inside a fenced block
  const endCode = () => {
    const pre = el('pre', { className: 'example' });
    pre.append(el('code', { text: code.lines.join('\n') }));
    if (code.inItem) list.lastElementChild.append(pre);
    else blocks.push(pre);
    code = null;
  };
  const endBlock = () => {
    if (paragraph.length) blocks.push(renderInline(el('p'), paragraph.join(' ')));
    paragraph = [];
    list = null;
  };
  for (const raw of markdown.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trim();
    if (code) {
      if (line.startsWith(code.fence[0]) && /^(`+|~+)$/.test(line) && line.length >= code.fence.length) {
        endCode();
      } else {
        code.lines.push(raw.slice(Math.min(code.indent, raw.length - raw.trimStart().length)));
      }
      continue;
    }
    const fence = /^(`{3,}|~{3,})/.exec(line);
    if (fence) {
      const indent = raw.length - raw.trimStart().length;
      const inItem = Boolean(list && indent >= 2);
      if (!inItem) endBlock();
      code = { fence: fence[1], lines: [], indent, inItem };
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    const item = /^(?:([-*+])|\d+[.)])\s+(.*)$/.exec(line);
    const listTag = item && (item[1] ? 'ul' : 'ol');
    const indented = /^\s{2,}/.test(raw); // under the list item above
    if (!line) {
      endBlock();
    } else if (heading) {
      endBlock();
      blocks.push(renderInline(el(`h${heading[1].length}`), heading[2].replace(/\s+#+$/, '')));
    } else if (/^(-{3,}|\*{3,}|_{3,})$/.test(line)) {
      endBlock();
      blocks.push(el('hr'));
    } else if (item && list && indented) {
      // an indented item nests in the item above (the list a claim introduces)
      const parent = list.lastElementChild;
      let nested = Array.from(parent.children).find((child) => child.tagName.toLowerCase() === listTag);
      if (!nested) nested = parent.appendChild(el(listTag));
      nested.append(renderInline(el('li'), item[2]));
    } else if (item) {
      if (!list || list.tagName.toLowerCase() !== listTag) {
        endBlock();
        list = el(listTag);
        blocks.push(list);
      }
      list.append(renderInline(el('li'), item[2]));
    } else if (list && indented) {
      list.lastElementChild.append(' '); // indented continuation of a list item
      renderInline(list.lastElementChild, line);
    } else {
      if (list) endBlock();
      paragraph.push(line);
    }
  }
  if (code) endCode(); // a fence left open runs to the end, as in CommonMark
  endBlock();
  return blocks;
}

function renderInline(parent, text) {
  const emphasis = /\*\*(.+?)\*\*|\*([^*\s](?:[^*]*[^*\s])?)\*/g;
  let last = 0;
  let match;
  while ((match = emphasis.exec(text))) {
    appendTokens(parent, text.slice(last, match.index));
    if (match[1] !== undefined) appendTokens(parent.appendChild(el('strong')), match[1]);
    else appendTokens(parent.appendChild(el('em')), match[2]);
    last = emphasis.lastIndex;
  }
  appendTokens(parent, text.slice(last));
  return parent;
}

// The report escapes the HTML it quotes (&amp; &lt; &gt;), a backtick outside code (&#96;)
// and a bracket or backslash (\[ \] \\) so that Markdown viewers show them as text; this
// page builds text nodes, so it turns them back into characters.
function unescapeEntities(text) {
  return text.replace(/\\([\\[\]])/g, '$1')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&#96;/g, '`').replace(/&amp;/g, '&');
}

// A code span (CommonMark: a run of backticks, text, as many backticks) is shown as
// written, in a <code> element: the report leaves its text unescaped ("git pull <URL>").
const CODE_SPAN_RE = /(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)/g;

function appendTokens(parent, escaped) {
  CODE_SPAN_RE.lastIndex = 0;
  let last = 0;
  let match;
  while ((match = CODE_SPAN_RE.exec(escaped))) {
    appendText(parent, escaped.slice(last, match.index));
    parent.append(el('code', { text: match[2] }));
    last = CODE_SPAN_RE.lastIndex;
  }
  appendText(parent, escaped.slice(last));
}

// Citations and marks are found in the escaped text, so a source's own "\[S3\]" stays text.
function appendText(parent, escaped) {
  TOKEN_RE.lastIndex = 0;
  let last = 0;
  let match;
  while ((match = TOKEN_RE.exec(escaped))) {
    if (match.index > last) parent.append(unescapeEntities(escaped.slice(last, match.index)));
    if (match[1]) match[1].split(/\s*[,;]\s*/).forEach((sid) => parent.append(citationButton(sid)));
    else parent.append(markSpan(match[2]));
    last = TOKEN_RE.lastIndex;
  }
  if (last < escaped.length) parent.append(unescapeEntities(escaped.slice(last)));
}

function citationButton(sid) {
  return el('button', { type: 'button', className: 'citation', 'data-sid': sid, title: `Show source ${sid}`, text: sid });
}

function markSpan(symbol) {
  const [cls, title] = MARKS[symbol.startsWith('⚠') ? '⚠' : symbol];
  return el('span', { className: `mark ${cls}`, title, 'aria-label': title, text: symbol });
}

function onReportClick(event) {
  const button = event.target.closest('.citation, .source-open');
  if (button) openSource(button.dataset.sid, button);
}

function openSource(sid, opener) {
  const source = state.sources.get(sid);
  state.sourceOpener = opener || null;
  const claim = source ? claimBeside(opener, sid) : null;
  const span = claim ? claimSpan(claim, source) : null;
  $('source-sid').textContent = sid;
  $('source-title').textContent = source ? (source.title || sid) : `${sid} (not in the results)`;
  $('source-location').textContent = source ? (source.location || '') : '';
  $('source-claim').textContent = claim
    ? `Claim (${String(claim.status || '').replace('_', ' ')}): ${claim.context ? `${claim.context}: ` : ''}${claim.text}` : '';
  const pre = $('source-text');
  pre.replaceChildren(...(source ? highlightSpan(String(source.text ?? ''), span?.start, span?.end) : []));
  $('source-panel').hidden = false;
  const mark = pre.querySelector('mark');
  if (mark) mark.scrollIntoView({ block: 'nearest' });
  else pre.scrollTop = 0;
  $('close-source').focus();
}

// The claim a citation button stands for: of the claims citing `sid`, the one whose text
// ends closest before the button in its line of the report (claims are verified against
// an exact span of their source, which the panel then highlights).
function claimBeside(opener, sid) {
  const block = opener && opener.classList.contains('citation')
    ? opener.closest('li, p, h1, h2, h3, h4, h5, h6') : null;
  if (!block) return null;
  const range = document.createRange();
  range.setStart(block, 0);
  range.setEndBefore(opener);
  const before = normalized(range.toString());
  let best = null;
  let bestAt = -1;
  for (const claim of state.claims || []) {
    if (!Array.isArray(claim.sids) || !claim.sids.includes(sid)) continue;
    const at = before.lastIndexOf(normalized(claim.text));
    if (at > bestAt) [best, bestAt] = [claim, at];
  }
  return best;
}

function claimSpan(claim, source) {
  const verification = claim.verification || {};
  const checked = verification.checked || {};
  if (checked[source.source_id]) return checked[source.source_id];
  return verification.source_id === source.source_id ? verification : null;
}

function normalized(text) {
  return String(text).replace(/\s+/g, ' ').trim().toLowerCase();
}

// Highlights text.slice(start, end); falls back to the whole text when the span is unusable.
function highlightSpan(text, start, end) {
  const valid = Number.isInteger(start) && Number.isInteger(end) && start >= 0 && start < end && end <= text.length;
  if (!valid) return [text];
  return [text.slice(0, start), el('mark', { text: text.slice(start, end) }), text.slice(end)];
}

function closeSource() {
  $('source-panel').hidden = true;
  if (state.sourceOpener && state.sourceOpener.isConnected) state.sourceOpener.focus();
  state.sourceOpener = null;
}

// ---------- sessions: open, submit, history ----------

function resetSessionView(id) {
  clearTimeout(state.refreshTimer);
  Object.assign(state, {
    sessionId: id, session: null, lastEventId: null, refreshTimer: null, reportFor: null,
    sources: new Map(), clarifyKey: null, answeredKey: null,
    plan: null, planKey: null, planShownKey: null, planSentKey: null, planServerError: null,
  });
  for (const name of ['placeholder', 'report', 'source-panel', 'clarification', 'plan-review', 'cancel',
    'session-error', 'plan-review-error']) {
    $(name).hidden = true;
  }
  for (const name of ['live-query', 'stage', 'live-mode', 'counts', 'sub-questions', 'events', 'report-body', 'sources',
    'plan-rows']) {
    $(name).replaceChildren();
  }
  $('live').hidden = false;
  setBadge($('status'), '…');
}

async function openSession(id, { updateHash = true } = {}) {
  if (!id) return;
  stopStream();
  resetSessionView(id);
  clearError();
  if (updateHash) setHash(id);
  markCurrentInHistory();
  const session = await refreshSession(id);
  if (session && state.sessionId === id && !TERMINAL.has(session.status)) streamSession(id);
}

async function onSubmit(event) {
  event.preventDefault();
  const query = $('query').value.trim();
  if (!query) {
    showError('Please enter a question.');
    $('query').focus();
    return;
  }
  const config = {
    kb: $('kb').value || null,
    mode: $('mode').value,
    clarify: $('clarify').value,
    use_web: $('use-web').checked,
  };
  // Sent only when ticked: the server's default is no review.
  if ($('review-plan').checked) config.review_plan = true;
  const button = $('submit');
  button.disabled = true;
  try {
    const created = await apiJson('/api/research/sessions', { method: 'POST', body: { query, config } });
    clearError();
    state.historyOffset = 0;
    const opening = openSession(created.session_id); // sets state.sessionId synchronously
    loadHistory();
    await opening;
  } catch (err) {
    showError(`Could not start research: ${err.message}`);
  } finally {
    button.disabled = false;
  }
}

async function loadKnowledgeBases() {
  const select = $('kb');
  try {
    const data = await apiJson('/api/knowledge-bases');
    const kbs = Array.isArray(data && data.knowledge_bases) ? data.knowledge_bases : [];
    select.replaceChildren(el('option', { value: '', text: '— none —' }), ...kbs.map((kb) => el('option', {
      value: kb.name,
      title: kb.embedding_model ? `embeddings: ${kb.embedding_model}` : null,
      text: Number.isFinite(kb.chunks) ? `${kb.name} (${kb.chunks} chunks)` : String(kb.name),
    })));
    if (kbs.length) select.value = kbs[0].name;
  } catch (err) {
    showError(`Could not load knowledge bases: ${err.message}`);
  }
}

async function loadHistory() {
  const offset = state.historyOffset;
  try {
    const page = await apiJson(`/api/research/sessions?limit=${PAGE_SIZE}&offset=${offset}`);
    const items = Array.isArray(page && page.items) ? page.items : [];
    const total = Number.isFinite(page.total) ? page.total : offset + items.length;
    $('session-list').replaceChildren(...items.map(historyItem));
    $('newer').disabled = offset <= 0;
    $('older').disabled = offset + items.length >= total;
    $('page-info').textContent = items.length ? `${offset + 1}–${offset + items.length} of ${total}` : 'No sessions yet';
  } catch (err) {
    showError(`Could not load past sessions: ${err.message}`);
  }
}

function historyItem(item) {
  const button = el('button', { type: 'button', className: 'session-item', 'data-id': item.id },
    el('span', { className: 'session-query', text: item.query || '(no question)' }),
    el('span', { className: 'session-info' },
      badge(item.status), ' ',
      el('span', { className: 'session-time', text: formatTime(item.created_at) })));
  if (item.id === state.sessionId) button.setAttribute('aria-current', 'true');
  return el('li', {}, button);
}

function markCurrentInHistory() {
  for (const button of $('session-list').querySelectorAll('.session-item')) {
    if (button.dataset.id === state.sessionId) button.setAttribute('aria-current', 'true');
    else button.removeAttribute('aria-current');
  }
}

function onHistoryClick(event) {
  const button = event.target.closest('.session-item');
  if (button) openSession(button.dataset.id);
}

function pageHistory(direction) {
  state.historyOffset = Math.max(0, state.historyOffset + direction * PAGE_SIZE);
  loadHistory();
}

function sessionFromHash() {
  const match = /^#session=(.+)$/.exec(window.location.hash);
  if (!match) return null;
  try { return decodeURIComponent(match[1]); } catch { return null; }
}

function setHash(id) {
  const hash = `#session=${encodeURIComponent(id)}`;
  if (window.location.hash !== hash) window.location.hash = hash;
}

// Back/forward or a pasted link: open the session unless it is already shown.
function onHashChange() {
  const id = sessionFromHash();
  if (id && id !== state.sessionId) openSession(id, { updateHash: false });
}

// ---------- start-up ----------

function init() {
  $('ask-form').addEventListener('submit', onSubmit);
  $('query').addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) $('ask-form').requestSubmit();
  });
  $('key-form').addEventListener('submit', onSaveKey);
  $('cancel').addEventListener('click', onCancel);
  $('send-answer').addEventListener('click', () => sendClarification($('clarification-answer').value));
  $('end-clarification').addEventListener('click', () => sendClarification('/end'));
  $('approve-plan').addEventListener('click', onApprovePlan);
  $('replan').addEventListener('click', onReplan);
  $('add-sub-question').addEventListener('click', onAddPlanRow);
  $('reset-plan').addEventListener('click', onResetPlan);
  $('plan-rows').addEventListener('click', onPlanRowsClick);
  $('plan-rows').addEventListener('input', (event) => event.target.removeAttribute('aria-invalid'));
  $('report').addEventListener('click', onReportClick);
  document.querySelector('.export-bar').addEventListener('click', onExport);
  $('close-source').addEventListener('click', closeSource);
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !$('source-panel').hidden) closeSource();
  });
  $('session-list').addEventListener('click', onHistoryClick);
  $('older').addEventListener('click', () => pageHistory(1));
  $('newer').addEventListener('click', () => pageHistory(-1));
  $('refresh-history').addEventListener('click', loadHistory);
  window.addEventListener('hashchange', onHashChange);

  loadKnowledgeBases();
  loadHistory();
  const id = sessionFromHash();
  if (id) openSession(id, { updateHash: false });
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
else init();
