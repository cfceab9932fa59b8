// The DropTrack demo dashboard: renders what the simulated phones hold (GET /demo/state), sends
// the buttons to the server (POST /demo/actions/…, /demo/broken/…, /demo/iphone/relaunch), and shows
// every send, drop and iPhone app event as it happens (Server-Sent Events from GET /demo/events). No
// build step, no dependencies.
"use strict";

const $ = (id) => document.getElementById(id);

function text(id, value) {
  $(id).textContent = value == null ? "" : String(value);
}

function segments(container, lit, count) {
  container.replaceChildren();
  for (let index = 0; index < count; index += 1) {
    const segment = document.createElement("span");
    if (index < lit) segment.className = "lit";
    container.appendChild(segment);
  }
}

function renderIPhone(iphone) {
  text("iphone-received", `${iphone.received} pushes received`);
  $("la-enabled").checked = iphone.liveActivitiesEnabled;
  const shown = iphone.activities.filter((activity) => activity.phase !== "dismissed");
  const activity = shown[shown.length - 1];
  const card = $("card");
  if (!activity || !activity.view) {
    card.className = "card empty";
    card.dataset.phase = "none";
    text("card-status", "No Live Activity");
    ["card-order", "card-phase", "card-eta", "card-stops", "card-courier", "island-trailing", "expanded-status",
      "expanded-eta", "expanded-courier", "expanded-stops", "minimal-percent"].forEach((id) => text(id, ""));
    segments($("card-segments"), 0, 7);
    segments($("expanded-segments"), 0, 7);
    $("banner").classList.add("hidden");
    return;
  }
  const view = activity.view;
  card.className = "card";
  card.dataset.phase = activity.phase;
  text("card-order", `Order ${activity.orderId}`);
  text("card-phase", activity.phase === "active" ? "" : activity.phase);
  text("card-status", view.status);
  segments($("card-segments"), view.litSegments, view.segmentCount);
  text("card-eta", view.eta);
  text("card-stops", view.stops);
  text("card-courier", view.courier);
  $("card-courier").classList.toggle("reassigned", view.reassigned);
  text("island-trailing", view.eta);
  text("expanded-status", view.status);
  text("expanded-eta", view.eta);
  segments($("expanded-segments"), view.litSegments, view.segmentCount);
  text("expanded-courier", view.courierCompact);
  text("expanded-stops", view.stops);
  text("minimal-percent", view.percent);
  const banner = $("banner");
  if (activity.lastAlert) {
    banner.textContent = activity.lastAlert;
    banner.classList.remove("hidden");
  } else {
    banner.classList.add("hidden");
  }
}

// The iPhone app's own log (DropTrackLive's sync events, tokens by fingerprint) and its last relaunch.
function renderApp(app) {
  text("iphone-app-status", app.lastRelaunch);
  const list = $("iphone-app-log");
  list.replaceChildren();
  for (const line of app.log.slice(-8).reverse()) {
    const item = document.createElement("li");
    item.className = line.kind;
    item.textContent = line.text;
    list.appendChild(item);
  }
}

function renderAndroid(android) {
  text("android-received", `${android.received} messages received`);
  $("lu-allowed").checked = android.liveUpdatesAllowed;
  $("android-online").checked = android.online;
  const notification = android.notifications[android.notifications.length - 1];
  const box = $("notification");
  const chip = $("android-chip");
  if (!notification) {
    box.className = "notification empty";
    text("android-title", "No Live Update");
    ["android-text", "android-promoted", "android-reasons"].forEach((id) => text(id, ""));
    $("android-progress").replaceChildren();
    chip.classList.add("hidden");
    return;
  }
  box.className = "notification";
  text("android-title", notification.title);
  text("android-text", notification.text);
  const promoted = $("android-promoted");
  promoted.textContent = notification.promoted ? "· promoted Live Update" : "· not promoted";
  promoted.className = notification.promoted ? "promoted" : "not-promoted";
  text("android-reasons", notification.promoted ? "" : notification.notPromotedBecause.join("; "));
  chip.textContent = notification.chip;
  chip.classList.toggle("hidden", !notification.chip);
  const progress = $("android-progress");
  progress.replaceChildren();
  const total = notification.max || 100;
  let position = 0;
  for (const segment of notification.segments) {
    const element = document.createElement("span");
    element.className = position + segment.length <= notification.progress ? "seg done" : "seg";
    element.style.flex = String(segment.length);
    progress.appendChild(element);
    position += segment.length;
  }
  for (const point of notification.points) {
    const element = document.createElement("span");
    element.className = "point";
    element.style.left = `${(100 * point.position) / total}%`;
    progress.appendChild(element);
  }
}

function renderDrops(id, drops) {
  const list = $(id);
  list.replaceChildren();
  for (const drop of drops.slice(-8).reverse()) {
    const item = document.createElement("li");
    const trap = document.createElement("b");
    trap.textContent = drop.trap ? `${drop.trap} ` : "";
    item.append(trap, drop.reason);
    list.appendChild(item);
  }
}

let refreshing = false;
let again = false;

async function refresh() {
  if (refreshing) {
    again = true;
    return;
  }
  refreshing = true;
  try {
    const response = await fetch("/demo/state", { cache: "no-store" });
    const state = await response.json();
    renderIPhone(state.iphone);
    renderApp(state.iphone.app);
    renderAndroid(state.android);
    renderDrops("iphone-drops", state.iphone.drops);
    renderDrops("android-drops", state.android.drops);
    document.body.dataset.order = state.order || "";
  } finally {
    refreshing = false;
    if (again) {
      again = false;
      refresh();
    }
  }
}

function log(kind, html, extra) {
  const list = $("log");
  const item = document.createElement("li");
  item.className = kind;
  const time = document.createElement("time");
  time.textContent = new Date().toLocaleTimeString();
  item.appendChild(time);
  const body = document.createElement("span");
  body.textContent = html;
  item.appendChild(body);
  for (const line of extra || []) {
    const detail = document.createElement("span");
    detail.className = "finding";
    detail.textContent = line;
    item.appendChild(detail);
  }
  list.prepend(item);
  while (list.children.length > 200) list.lastChild.remove();
}

function connect() {
  const source = new EventSource("/demo/events");
  source.addEventListener("ready", () => text("stream-state", "live"));
  source.addEventListener("send", (event) => {
    const send = JSON.parse(event.data);
    const ok = send.status >= 200 && send.status < 300;
    const line = `${send.provider} ${send.event} → ${send.destination}  ` +
      `${send.status || "-"} ${send.reason}  ${send.latencyMs} ms  p${send.priority}` +
      (send.note ? `  (${send.note})` : "");
    log(ok ? "ok" : "fail", line, send.explanation ? [send.explanation] : []);
    refresh();
  });
  source.addEventListener("drop", (event) => {
    const drop = JSON.parse(event.data);
    log("drop", `${drop.device} dropped ${drop.event || "a push"}: ${drop.reason}`, drop.trap ? [drop.trap] : []);
    refresh();
  });
  source.addEventListener("broken", (event) => {
    const result = JSON.parse(event.data);
    const findings = result.findings.map((f) => `${f.trap} ${f.message} Fix: ${f.fix}`);
    log("broken", `broken push "${result.kind}": APNs answered ${result.status || "nothing"} ${result.reason}`, findings);
  });
  source.addEventListener("app", (event) => {
    const line = JSON.parse(event.data);
    log(line.kind === "failed" || line.kind === "retrying" ? "fail" : "app", `iPhone app: ${line.text}`);
    refresh();
  });
  source.addEventListener("device", () => refresh());
  source.onerror = () => text("stream-state", "reconnecting…");
}

async function post(path, body) {
  const response = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : "{}",
  });
  return response.json();
}

document.querySelectorAll("[data-action]").forEach((button) => {
  button.addEventListener("click", async () => {
    const result = await post(`/demo/actions/${button.dataset.action}`);
    const error = result.body && result.body.error;
    text("answer", error ? `${button.textContent}: ${result.status} ${error.message}` :
      `${button.textContent}: ${result.status}`);
    refresh();
  });
});

document.querySelectorAll("[data-broken]").forEach((button) => {
  button.addEventListener("click", async () => {
    const result = await post(`/demo/broken/${button.dataset.broken}`);
    text("answer", result.error ? result.error.message :
      `${button.textContent}: APNs ${result.status || "-"} ${result.reason}; ${result.findings.length} finding(s)`);
    setTimeout(refresh, 200);
  });
});

$("la-enabled").addEventListener("change", (event) => post("/demo/settings", {
  liveActivitiesEnabled: event.target.checked,
}).then(refresh));
$("lu-allowed").addEventListener("change", (event) => post("/demo/settings", {
  androidLiveUpdatesAllowed: event.target.checked,
}).then(refresh));
$("android-online").addEventListener("change", (event) => post("/demo/settings", {
  androidOnline: event.target.checked,
}).then(refresh));
$("relaunch").addEventListener("click", async () => {
  text("iphone-app-status", "relaunching…");
  await post("/demo/iphone/relaunch");
  text("answer", "The iPhone app relaunched: a new sync over the same ledger, then a reconcile");
});
$("android-demote").addEventListener("click", async () => {
  const result = await post("/demo/actions/android-demote");
  text("answer", result.status === 200 ? "The user demoted the Live Update; the server was not told"
    : (result.body && result.body.error ? result.body.error.message : `demote: ${result.status}`));
  refresh();
});
$("android-dismiss").addEventListener("click", async () => {
  const result = await post("/demo/actions/android-dismiss");
  text("answer", result.status === 200 ? "The user swiped the Live Update away; the server was not told"
    : (result.body && result.body.error ? result.body.error.message : `dismiss: ${result.status}`));
  refresh();
});

setInterval(() => {
  const now = new Date();
  const time = `${now.getHours()}:${String(now.getMinutes()).padStart(2, "0")}`;
  text("clock", time);
  text("android-clock", time);
}, 1000);

connect();
refresh();
