// polyrag's web app: sources, chats with streamed answers, and the evidence behind each citation.
// Plain modules, no build step; every call goes to the REST API under /api/v1.

const state = { workspace: "default", chat: null, sources: new Map(), following: new Set(), shown: null };
const $ = (selector) => document.querySelector(selector);

// -- the API --------------------------------------------------------------------------------

function base() {
  return `/api/v1/workspaces/${encodeURIComponent(state.workspace)}`;
}

async function api(path, options = {}) {
  const init = { ...options, headers: { ...(options.headers || {}) } };
  if (init.json !== undefined) {
    init.body = JSON.stringify(init.json);
    init.headers["content-type"] = "application/json";
    delete init.json;
  }
  const response = await fetch(path, init);
  if (response.status === 401) location.href = "/login.html";  // the server wants a token
  if (response.status === 204) return null;
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(body.error || `HTTP ${response.status}`);
    error.hint = body.hint || "";
    throw error;
  }
  return body;
}

function report(error) {
  const line = error.hint ? `${error.message} (${error.hint})` : error.message;
  addMessage("system", line).classList.add("refused");
}

// -- workspaces and providers ---------------------------------------------------------------

async function loadWorkspaces() {
  const { workspaces } = await api("/api/v1/workspaces");
  const select = $("#workspace");
  select.replaceChildren(...workspaces.map(({ name }) => new Option(name, name)));
  select.value = state.workspace;
}

async function loadProviders() {
  try {
    const { providers, offline } = await api("/api/v1/providers");
    $("#offline").hidden = !offline;
    $("#providers").textContent = providers
      .map((p) => `${p.name}${p.healthy ? "" : " (down)"}`)
      .join(" → ");
  } catch (error) {
    $("#providers").textContent = "";
  }
}

async function switchWorkspace(name) {
  state.workspace = name;
  state.chat = null;
  localStorage.setItem("polyrag.workspace", name);
  $("#messages").replaceChildren();
  closeEvidence();
  await Promise.all([loadChats(), loadSources()]);
}

// -- sources and uploads --------------------------------------------------------------------

async function loadSources() {
  const { sources } = await api(`${base()}/sources`);
  state.sources = new Map(sources.map((s) => [s.source_id, s]));
  const list = $("#sources");
  list.replaceChildren(
    ...sources
      .filter((s) => !s.parent)
      .map((source) => {
        const item = document.createElement("li");
        item.dataset.sourceId = source.source_id;
        const name = document.createElement("span");
        name.className = "name";
        name.textContent = source.name;
        name.title = source.path;
        const info = document.createElement("span");
        info.className = "muted info";
        const paged = { pdf: "page", pptx: "slide", ppt: "slide", odp: "slide" }[source.media_type];
        const count = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
        const pages = paged && source.pages ? ` · ${count(source.pages, paged)}` : "";
        info.textContent = `${source.media_type} · ${source.status} · ${count(source.chunks, "passage")}${pages}`;
        const reindex = button("↻", `Index ${source.name} again`, () => reindexSource(source));
        const remove = button("✕", `Delete ${source.name}`, () => deleteSource(source));
        item.append(name, reindex, remove, info);
        if (source.error) {
          const error = document.createElement("span");
          error.className = "error";
          error.textContent = source.error;
          item.append(error);
        }
        return item;
      }),
  );
}

function button(label, title, onClick) {
  const element = document.createElement("button");
  element.type = "button";
  element.textContent = label;
  element.title = title;
  element.setAttribute("aria-label", title);
  element.addEventListener("click", onClick);
  return element;
}

async function deleteSource(source) {
  if (!confirm(`Delete ${source.name} and everything indexed from it?`)) return;
  try {
    await api(`${base()}/sources/${source.source_id}`, { method: "DELETE" });
  } catch (error) {
    report(error);
  }
  await loadSources();
}

async function reindexSource(source) {
  try {
    const job = await api(`${base()}/sources/${source.source_id}/reindex`, { method: "POST" });
    followJob(job, uploadRow(source.name));
  } catch (error) {
    report(error);
  }
}

function uploadRow(name) {
  const item = document.createElement("li");
  const label = document.createElement("span");
  label.className = "name";
  label.textContent = name;
  const bar = document.createElement("progress");
  bar.max = 100;
  bar.value = 0;
  const status = document.createElement("span");
  status.className = "muted status";
  status.textContent = "uploading";
  item.append(label, bar, status);
  $("#uploads").append(item);
  return item;
}

function uploadFiles(files) {
  for (const file of files) {
    const row = uploadRow(file.name);
    const form = new FormData();
    form.append("files", file, file.name);
    const request = new XMLHttpRequest();
    request.open("POST", `${base()}/sources`);
    request.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) row.querySelector("progress").value = (50 * event.loaded) / event.total;
    });
    request.addEventListener("load", () => {
      const body = JSON.parse(request.responseText || "{}");
      if (request.status !== 202) {
        row.querySelector(".status").textContent = body.error || `HTTP ${request.status}`;
        row.classList.add("failed");
        return;
      }
      followJob(body, row);
    });
    request.addEventListener("error", () => {
      row.querySelector(".status").textContent = "the upload failed: is the server running?";
    });
    request.send(form);
  }
}

async function followJob(job, row) {
  row.querySelector(".status").textContent = "indexing";
  row.querySelector("progress").value = 50;
  while (true) {
    const current = await api(`${base()}/jobs/${job.job_id}`);
    const done = current.total ? current.done / current.total : 0;
    row.querySelector("progress").value = 50 + 50 * done;
    if (["done", "failed", "cancelled"].includes(current.status)) {
      const failed = current.files.find((f) => f.outcome === "failed");
      row.querySelector(".status").textContent = failed
        ? `failed: ${failed.detail}`
        : current.status === "done"
          ? `indexed (${current.pages} ${current.pages === 1 ? "page" : "pages"})`
          : current.status;
      row.dataset.status = failed ? "failed" : current.status;
      await loadSources();
      if (!failed && current.status === "done") setTimeout(() => row.remove(), 4000);
      return current;
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

// -- chats ----------------------------------------------------------------------------------

async function loadChats() {
  const { chats } = await api(`${base()}/chats`);
  const list = $("#chats");
  list.replaceChildren(
    ...chats.map((chat) => {
      const item = document.createElement("li");
      item.classList.toggle("active", chat.chat_id === state.chat);
      const link = document.createElement("a");
      link.href = `#chat=${chat.chat_id}`;
      link.textContent = chat.title;
      link.addEventListener("click", (event) => {
        event.preventDefault();
        openChat(chat.chat_id);
      });
      const remove = button("✕", `Delete the chat ${chat.title}`, async () => {
        await api(`${base()}/chats/${chat.chat_id}`, { method: "DELETE" });
        if (state.chat === chat.chat_id) newChat();
        await loadChats();
      });
      item.append(link, remove);
      return item;
    }),
  );
}

async function openChat(chatId) {
  const chat = await api(`${base()}/chats/${chatId}`);
  state.chat = chatId;
  location.hash = `chat=${chatId}`;
  $("#messages").replaceChildren();
  for (const message of chat.messages) {
    if (message.role === "user") addMessage("user", message.text);
    else showAnswer(addMessage("assistant", ""), { ...message.answer, message_id: message.message_id }, message.feedback);
  }
  await loadChats();
}

function newChat() {
  state.chat = null;
  history.replaceState(null, "", location.pathname);
  $("#messages").replaceChildren();
  loadChats();
}

// -- asking ---------------------------------------------------------------------------------

function addMessage(role, text) {
  const item = $("#message-template").content.firstElementChild.cloneNode(true);
  item.classList.add(role);
  item.querySelector(".who").textContent = role === "user" ? "You" : role === "assistant" ? "polyrag" : "";
  item.querySelector(".text").textContent = text;
  $("#messages").append(item);
  item.scrollIntoView({ block: "end" });
  return item;
}

async function ask(question, mode) {
  if (!state.chat) {
    const chat = await api(`${base()}/chats`, { method: "POST", json: {} });
    state.chat = chat.chat_id;
    location.hash = `chat=${chat.chat_id}`;
  }
  addMessage("user", question);
  const item = addMessage("assistant", "");
  item.classList.add("pending");
  const body = { question };
  if (mode) body.mode = mode;
  const response = await fetch(`${base()}/chats/${state.chat}/ask/stream`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    const failure = await response.json().catch(() => ({}));
    item.querySelector(".text").textContent = failure.error || `HTTP ${response.status}`;
    item.classList.add("refused");
    return;
  }
  for await (const [name, data] of serverEvents(response)) {
    if (name === "step") addStep(item, data);
    else if (name === "evidence") showChips(item, data.evidence);
    else if (name === "token") item.querySelector(".text").textContent += data.text;
    else if (name === "answer") showAnswer(item, data, null);
    else if (name === "error") {
      item.querySelector(".text").textContent = data.hint ? `${data.error} (${data.hint})` : data.error;
      item.classList.add("refused");
    }
  }
  item.classList.remove("pending");
  await loadChats();
}

async function* serverEvents(response) {
  // Named server-sent events from a streamed response, as [name, parsed data].
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  while (true) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replaceAll("\r\n", "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      let name = "message";
      const data = [];
      for (const line of block.split("\n")) {
        if (line.startsWith("event:")) name = line.slice(6).trim();
        else if (line.startsWith("data:")) data.push(line.slice(5).trimStart());
      }
      if (data.length) yield [name, JSON.parse(data.join("\n"))];
    }
  }
}

function addStep(item, step) {
  const steps = item.querySelector(".steps");
  steps.hidden = false;
  const line = document.createElement("li");
  line.textContent = `${step.step}: ${step.summary}`;
  steps.querySelector("ol").append(line);
}

function showChips(item, citations) {
  const chips = item.querySelector(".chips");
  chips.replaceChildren(
    ...citations.map((citation) => {
      const chip = document.createElement("button");
      chip.type = "button";
      chip.className = `chip modality-${citation.modality || modalityOf(citation)}`;
      const name = citation.path.split("#").pop().split("/").pop();
      const where = place(citation.locator || {}, citation.cells);
      chip.textContent = `[${citation.n}] ${name}${where ? " · " + where : ""}`;
      chip.title = `Show where this is: ${citation.where || name}`;
      chip.addEventListener("click", () => openEvidence(citation));
      return chip;
    }),
  );
}

function place(locator, reference) {
  // The short place a chip names: page, slide, a sheet's cells (as the server writes them:
  // "'Duck Observations'!B5:C9") or rows, or the moment in a recording.
  const parts = [];
  if (locator.page) parts.push(`page ${locator.page}`);
  if (locator.slide) parts.push(`slide ${locator.slide}`);
  if (reference) parts.push(reference);
  else {
    if (locator.sheet) parts.push(locator.sheet);
    if (locator.cells) parts.push(`cells ${locator.cells}`);
    else if (locator.rows) {
      const [first, last] = locator.rows;
      parts.push(first === last ? `row ${first}` : `rows ${first}-${last}`);
    }
  }
  if (locator.time_span) {
    const clock = (s) => `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, "0")}`;
    parts.push(clock(locator.time_span[0]));
  }
  return parts.join(", ");
}

function modalityOf(citation) {
  const locator = citation.locator || {};
  if (locator.time_span) return "audio";
  if (locator.sheet || locator.cells || locator.rows) return "table";
  return "text";
}

function showAnswer(item, answer, feedback) {
  item.classList.remove("pending");
  item.querySelector(".text").textContent = answer.answer;
  item.classList.toggle("refused", Boolean(answer.refused));
  const refusal = item.querySelector(".refusal");
  refusal.hidden = !answer.refused || !answer.refusal_explained;
  refusal.textContent = answer.refusal_explained ? `Why: ${answer.refusal_explained}.` : "";
  showChips(item, answer.citations || []);
  const steps = item.querySelector(".steps ol");
  if (answer.steps && !steps.children.length) answer.steps.forEach((step) => addStep(item, step));
  const meta = [];
  if (answer.provider) meta.push(`answered by ${answer.provider}`);
  if (answer.mode) meta.push(`mode ${answer.mode}`);
  if (answer.partial) meta.push("partial: the sources do not say everything asked");
  if ((answer.skipped_providers || []).length) meta.push(`passed over: ${answer.skipped_providers.join("; ")}`);
  item.querySelector(".meta").textContent = meta.join(" · ");
  if (answer.message_id) enableFeedback(item, answer.message_id, feedback);
}

function enableFeedback(item, messageId, feedback) {
  const box = item.querySelector(".feedback");
  box.hidden = false;
  const helpful = box.querySelector(".helpful");
  const unhelpful = box.querySelector(".unhelpful");
  const mark = (value) => {
    helpful.classList.toggle("chosen", value === true);
    unhelpful.classList.toggle("chosen", value === false);
  };
  if (feedback) mark(feedback.helpful);
  const send = async (value) => {
    try {
      await api(`${base()}/chats/${state.chat}/messages/${messageId}/feedback`, {
        method: "POST",
        json: { helpful: value },
      });
      mark(value);
    } catch (error) {
      report(error);
    }
  };
  helpful.onclick = () => send(true);
  unhelpful.onclick = () => send(false);
}

// -- evidence -------------------------------------------------------------------------------

function openEvidence(citation) {
  const panel = $("#evidence");
  const view = $("#evidence-view");
  const source = state.sources.get(citation.source_id);
  const locator = citation.locator || {};
  const name = citation.path.split("#").pop().split("/").pop();
  $("#evidence-title").textContent = `[${citation.n}] ${name}`;
  $("#evidence-where").textContent = citation.where || "";
  const file = `${base()}/sources/${citation.source_id}/file`;
  // A file found inside another (an attachment, a member of an archive) has no file of its
  // own: the one that carries it is offered instead.
  let carrier = source;
  while (carrier && carrier.parent) {
    const parent = carrier.parent;
    carrier = [...state.sources.values()].find((other) => other.path === parent);
  }
  carrier = carrier === source ? null : carrier;
  const link = $("#evidence-file");
  link.href = carrier ? `${base()}/sources/${carrier.source_id}/file` : file;
  link.textContent = carrier
    ? `Open the file that carries it (${carrier.name})`
    : "Open the original file";
  link.parentElement.hidden =
    !source || Boolean(source.parent && !carrier) || citation.path.includes("://");
  view.replaceChildren();
  state.shown = citation;
  const kind = source ? source.media_type : "";
  const slides = ["pptx", "ppt", "odp"].includes(kind) && locator.slide;
  if (((kind === "pdf" || kind === "image") && locator.page) || slides) {
    const image = document.createElement("img");
    const number = slides ? locator.slide : locator.page;
    const box = locator.bbox && !slides ? `&box=${locator.bbox.join(",")}` : "";
    image.src = `${base()}/sources/${citation.source_id}/pages/${number}.png?scale=1.5${box}`;
    image.alt = slides
      ? `Slide ${number} of ${name}`
      : `Page ${number} of ${name}, the cited region highlighted`;
    image.className = "page";
    view.append(image);
    image.addEventListener("load", () => scrollToBox(image, locator, kind));
  } else if ((kind === "audio" || kind === "video") && locator.time_span) {
    const player = document.createElement(kind === "video" ? "video" : "audio");
    player.controls = true;
    const [start, end] = locator.time_span;
    player.src = `${file}#t=${start},${end}`;
    view.append(player);
  }
  const passage = document.createElement("pre");
  passage.textContent = citation.text;
  view.append(passage);
  if (citation.modality === "table" || locator.sheet || locator.rows) {
    showRows(view, citation, passage);
  } else if ((kind === "email" || kind === "msg") && !source.parent) {
    showHeaders(view, citation);
  }
  panel.hidden = false;
  $(".layout").classList.add("with-evidence");
  $("#evidence-close").focus();
}

function scrollToBox(image, locator, kind) {
  if (!locator.bbox) return;
  const scale = image.clientWidth / image.naturalWidth;
  const top = kind === "pdf" ? image.naturalHeight - locator.bbox[3] * 1.5 : locator.bbox[1];
  $("#evidence").scrollTop = Math.max(0, image.offsetTop + top * scale - 80);
}

async function showRows(view, citation, passage) {
  // The table's cited rows with their header (from the table polyrag read), in place of the
  // passage's text; the text stays when the table cannot be found.
  const locator = citation.locator || {};
  const query = new URLSearchParams();
  if (locator.sheet) query.set("sheet", locator.sheet);
  if (locator.page) query.set("page", locator.page);
  if (locator.rows) query.set("rows", `${locator.rows[0]}-${locator.rows[1]}`);
  let found;
  try {
    found = await api(`${base()}/sources/${citation.source_id}/rows?${query}`);
  } catch (error) {
    return;
  }
  if (state.shown !== citation) return; // another citation was opened meanwhile
  const caption = document.createElement("p");
  caption.className = "muted";
  const where = found.sheet ? `sheet ${found.sheet}` : found.page ? `page ${found.page}` : found.name;
  caption.textContent = [found.title, where].filter(Boolean).join(" · ");
  const table = document.createElement("table");
  table.className = "rows";
  const head = table.createTHead().insertRow();
  for (const name of ["row", ...found.header]) {
    const cell = document.createElement("th");
    cell.textContent = name;
    head.append(cell);
  }
  const body = table.createTBody();
  for (const row of found.rows) {
    const line = body.insertRow();
    line.classList.toggle("cited", row.cited);
    for (const value of [row.row, ...row.cells]) line.insertCell().textContent = value;
  }
  passage.replaceWith(caption, table);
}

async function showHeaders(view, citation) {
  // An e-mail's From, To, Date and Subject above the cited passage, as a mail client shows them.
  let found;
  try {
    found = await api(`${base()}/sources/${citation.source_id}/message`);
  } catch (error) {
    return;
  }
  if (state.shown !== citation) return; // another citation was opened meanwhile
  const list = document.createElement("dl");
  list.className = "headers";
  for (const { name, value } of found.headers) {
    const term = document.createElement("dt");
    term.textContent = name;
    const detail = document.createElement("dd");
    detail.textContent = value;
    list.append(term, detail);
  }
  if (found.attachments.length) {
    const term = document.createElement("dt");
    term.textContent = "Attached";
    const detail = document.createElement("dd");
    detail.textContent = found.attachments.join(", ");
    list.append(term, detail);
  }
  view.prepend(list);
}

function closeEvidence() {
  $("#evidence").hidden = true;
  $(".layout").classList.remove("with-evidence");
}

// -- wiring ---------------------------------------------------------------------------------

function wire() {
  $("#workspace").addEventListener("change", (event) => switchWorkspace(event.target.value));
  $("#new-workspace").addEventListener("click", async () => {
    const name = prompt("Name of the new workspace (lower-case letters, digits, - or _):");
    if (!name) return;
    try {
      await api("/api/v1/workspaces", { method: "POST", json: { name } });
      state.workspace = name;
      await loadWorkspaces();
      await switchWorkspace(name);
    } catch (error) {
      report(error);
    }
  });
  $("#new-chat").addEventListener("click", newChat);
  $("#file-input").addEventListener("change", (event) => {
    uploadFiles(event.target.files);
    event.target.value = "";
  });
  const drop = $("#drop");
  drop.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") $("#file-input").click();
  });
  drop.addEventListener("dragover", (event) => {
    event.preventDefault();
    drop.classList.add("over");
  });
  drop.addEventListener("dragleave", () => drop.classList.remove("over"));
  drop.addEventListener("drop", (event) => {
    event.preventDefault();
    drop.classList.remove("over");
    uploadFiles(event.dataTransfer.files);
  });
  $("#ask").addEventListener("submit", async (event) => {
    event.preventDefault();
    const question = $("#question").value.trim();
    if (!question) return;
    $("#question").value = "";
    $("#send").disabled = true;
    try {
      await ask(question, $("#mode").value);
    } catch (error) {
      report(error);
    } finally {
      $("#send").disabled = false;
      $("#question").focus();
    }
  });
  $("#question").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey) {
      event.preventDefault();
      $("#ask").requestSubmit();
    }
  });
  $("#evidence-close").addEventListener("click", closeEvidence);
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeEvidence();
  });
}

async function start() {
  wire();
  state.workspace = localStorage.getItem("polyrag.workspace") || "default";
  try {
    await loadWorkspaces();
  } catch (error) {
    report(error);
    return;
  }
  if ($("#workspace").value !== state.workspace) state.workspace = "default";
  $("#workspace").value = state.workspace;
  loadProviders();
  await Promise.all([loadChats(), loadSources()]);
  const wanted = new URLSearchParams(location.hash.slice(1)).get("chat");
  if (wanted) await openChat(wanted).catch(() => newChat());
  document.body.dataset.ready = "true";
}

start();
