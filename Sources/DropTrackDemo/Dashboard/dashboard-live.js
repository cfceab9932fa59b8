// The DropTrack demo dashboard, part two: sends the buttons to the server (POST /demo/actions/…,
// /demo/broken/…, /demo/settings, /demo/iphone/relaunch) and shows every send, drop and iPhone app
// event as it happens (Server-Sent Events from GET /demo/events). Uses part one (dashboard.js).
"use strict";

const logLimit = 200;

function log(kind, line, extra) {
  const list = $("log");
  const item = document.createElement("li");
  item.className = kind;
  const time = document.createElement("time");
  time.textContent = new Date().toLocaleTimeString();
  item.appendChild(time);
  const body = document.createElement("span");
  body.textContent = line;
  item.appendChild(body);
  for (const detail of extra || []) {
    const element = document.createElement("span");
    element.className = "finding";
    element.textContent = detail;
    item.appendChild(element);
  }
  list.prepend(item);
  while (list.children.length > logLimit) list.lastChild.remove();
}

// What a fingerprint stands for, so a log line reads "iPhone update token c03e1a2b…", not bare hex.
function destinationName(provider, event, destination) {
  const fingerprint = String(destination || "");
  if (fingerprint.startsWith("channel:")) return `broadcast ${fingerprint}`;
  const short = `${fingerprint.slice(0, 8)}…`;
  if (provider === "fcm") return `Android FCM token ${short}`;
  return event === "start" ? `iPhone push-to-start token ${short}` : `iPhone update token ${short}`;
}

const deviceNames = { iphone: "iPhone", android: "Android phone" };

function connect() {
  const source = new EventSource("/demo/events");
  source.addEventListener("ready", () => text("stream-state", "live"));
  source.addEventListener("send", (event) => {
    const send = JSON.parse(event.data);
    const ok = send.status >= 200 && send.status < 300;
    const line = `${send.provider} ${send.event} → ${destinationName(send.provider, send.event, send.destination)}  ` +
      `${send.status || "-"} ${send.reason}  ${send.latencyMs} ms  p${send.priority}` +
      (send.note ? `  (${send.note})` : "");
    log(ok ? "ok" : "fail", line, send.explanation ? [send.explanation] : []);
    refresh();
  });
  source.addEventListener("drop", (event) => {
    const drop = JSON.parse(event.data);
    log("drop", `${deviceNames[drop.device] || drop.device} dropped ${drop.event || "a push"}: ${drop.reason}`,
      drop.trap ? [drop.trap] : []);
    refresh();
  });
  source.addEventListener("broken", (event) => {
    const result = JSON.parse(event.data);
    const findings = result.findings.map((f) => `${f.trap} ${f.message} Fix: ${f.fix}`);
    // Status 0: DropTrack's own APNs client refused the push, so it never left the machine.
    const outcome = result.status ? `APNs answered ${result.status} ${result.reason}`
      : `refused before sending: ${result.explanation || result.reason}`;
    log("broken", `broken push "${result.kind}" to ${destinationName("apns", result.kind === "no-alert" ? "start" : "update", result.destination)}: ${outcome}`,
      findings);
  });
  source.addEventListener("app", (event) => {
    const line = JSON.parse(event.data);
    log(line.kind === "failed" || line.kind === "retrying" ? "fail" : "app", `iPhone app: ${line.text}`);
    refresh();
  });
  source.addEventListener("reset", () => {
    $("log").replaceChildren();
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

function answerFor(label, result) {
  const error = result.body && result.body.error;
  return error ? `${label}: ${result.status} ${error.message}` : `${label}: ${result.status}`;
}

// A second "Place order" asks in the page first: end the running order and place a new one, or keep it.
async function place(replace) {
  $("place-confirm").classList.add("hidden");
  const result = await post("/demo/actions/place", replace ? { replace: true } : {});
  const error = result.body && result.body.error;
  if (result.status === 409 && error && error.code === "order_running") {
    text("place-confirm-text", `Order ${error.order} is still running. End it and place a new order?`);
    $("place-confirm").classList.remove("hidden");
    text("answer", "Place order: an order is running; confirm above");
  } else {
    text("answer", answerFor(replace ? "Ended the running order and placed a new one" : "Place order", result));
  }
  refresh();
}

$("place").addEventListener("click", () => place(false));
$("place-replace").addEventListener("click", () => place(true));
$("place-keep").addEventListener("click", () => {
  $("place-confirm").classList.add("hidden");
  text("answer", "Kept the running order");
});

document.querySelectorAll("[data-action]").forEach((button) => {
  button.addEventListener("click", async () => {
    const result = await post(`/demo/actions/${button.dataset.action}`);
    text("answer", answerFor(button.textContent, result));
    refresh();
  });
});

$("reset").addEventListener("click", async () => {
  $("place-confirm").classList.add("hidden");
  const result = await post("/demo/actions/reset");
  $("log").replaceChildren();
  const ended = result.body && result.body.ended;
  text("answer", result.status === 200
    ? `Reset: ${ended ? `ended order ${ended}, ` : ""}cleared both phones and the log`
    : answerFor("Reset", result));
  refresh();
});

$("offline-burst").addEventListener("click", async () => {
  const button = $("offline-burst");
  button.disabled = true;
  text("answer", "The Android phone is offline; sending 120 updates…");
  try {
    const result = await post("/demo/actions/offline-burst");
    const body = result.body || {};
    text("answer", result.status === 200
      ? `${counted(body.sent, "update", "updates")} sent while the Android phone was offline; ` +
        `FCM kept at most 100 and discarded them (DT-114): ${counted((body.dropped || []).length, "drop", "drops")}`
      : answerFor("Queue 120 updates while offline", result));
  } finally {
    refresh();
  }
});

document.querySelectorAll("[data-broken]").forEach((button) => {
  button.addEventListener("click", async () => {
    const result = await post(`/demo/broken/${button.dataset.broken}`);
    text("answer", result.error ? result.error.message :
      `${button.textContent}: ${result.status ? `APNs ${result.status} ${result.reason}` : "refused before sending"}; ` +
      `${counted(result.findings.length, "finding", "findings")}`);
    setTimeout(refresh, 200);
  });
});

// Each switch, what the server's answer says it now is, and what that means.
const switches = [
  { id: "la-enabled", field: "liveActivitiesEnabled", read: (state) => state.iphone.liveActivitiesEnabled,
    on: "iPhone: Live Activities on; the app told the server",
    off: "iPhone: Live Activities off; the app told the server, and the diagnosis names it (DT-048)" },
  { id: "lu-allowed", field: "androidLiveUpdatesAllowed", read: (state) => state.android.liveUpdatesAllowed,
    on: "Android: Live Updates allowed; the app told the server",
    off: "Android: Live Updates not allowed; new cards stay plain notifications, and the app told the server" },
  { id: "android-online", field: "androidOnline", read: (state) => state.android.online,
    on: "Android: online; FCM handed over what it stored",
    off: "Android: offline; FCM stores up to 100 messages for it, and discards them all past that (DT-114)" },
];

for (const item of switches) {
  const box = $(item.id);
  box.addEventListener("change", async () => {
    const wanted = box.checked;
    box.disabled = true;
    const label = box.closest("label");
    try {
      const state = await post("/demo/settings", { [item.field]: wanted });
      const took = item.read(state) === wanted;
      text("answer", took ? (wanted ? item.on : item.off) : `${item.field}: not applied`);
      label.classList.toggle("applied", took);
      setTimeout(() => label.classList.remove("applied"), 2500);
    } finally {
      box.disabled = false;
      refresh();
    }
  });
}

$("relaunch").addEventListener("click", async () => {
  text("iphone-app-status", "relaunching…");
  await post("/demo/iphone/relaunch");
  text("answer", "The iPhone app relaunched: a new sync over the same ledger, then a reconcile");
});
$("card-action").addEventListener("click", async () => {
  await post("/demo/iphone/press");
  text("answer", "Pressed the card's button: the app sends the press with its device credential; the server applies it and pushes the next state");
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
