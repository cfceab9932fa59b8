#!/usr/bin/env python3
"""The demo in a real browser: headless Chromium from Debian, driven through chromedriver's W3C
WebDriver protocol (plain HTTP, no client library), against `droptrack-dev demo`.

1. Open the dashboard, place an order, press "Next step" six times: the iPhone card shows the last
   step ("Delivered", all seven segments lit) and the Android notification agrees.
2. Reassign the rider: the courier label changes on both phones.
3. A deliberately broken push (a Unix date in content-state) shows in the live log and in the
   iPhone's drops, with the trap id.
4. Relaunch the iPhone app (DropTrackLive's sync, started again over the same ledger): the page
   reports that it re-sent no token and reconciled, and the activity still updates afterwards.
5. Save a screenshot at 1280 px wide to .build/artifacts/dashboard.png (a build artifact, not committed).
6. Demote the Android Live Update to a plain notification and reassign: it stays demoted (DT-115).
7. Swipe the Android Live Update away and reassign again: the phone drops the update as DT-115 and
   the card does not come back.
8. Reset: the order ends, both phones and the log are cleared.
9. One current order: a second "Place order" asks in the page; "Keep it" keeps the order, "End it and
   place a new order" ends it, so one order runs. The start's banner goes after a few seconds.
10. A switch says it took effect; "Queue 120 updates while offline" shows FCM's DT-114 drop; the
   suffix-less topic push is logged as refused before sending.
11. The card's "Got it" button (iOS 17's App Intent) appears at "Almost there"; a click sends the press
   through the app's sync: the app's log shows it and the card turns "Delivered".
12. At 390 px wide (the window set through WebDriver): one column, no horizontal scroll, the Android
   card inside the page; a screenshot to .build/artifacts/dashboard-390.png.

Usage: dashboard_browser.py PATH/TO/droptrack
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from stack import free_port  # noqa: E402
from webdriver import WebDriver, wait_for  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DROPTRACK = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/droptrack")
DROPTRACK_DEV = os.path.join(os.path.dirname(DROPTRACK), "droptrack-dev")  # the demo is droptrack-dev's
ARTIFACT = os.path.join(ROOT, ".build/artifacts/dashboard.png")
ARTIFACT_390 = os.path.join(ROOT, ".build/artifacts/dashboard-390.png")
failures = []


def check(condition, message):
    print(f"  {'ok  ' if condition else 'FAIL'} {message}")
    if not condition:
        failures.append(message)


def state(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/demo/state", timeout=10) as response:
        return json.loads(response.read())


work = tempfile.mkdtemp(prefix="droptrack-browser-")
port = free_port()
demo_log = open(f"{work}/demo.log", "w")
demo = subprocess.Popen([DROPTRACK_DEV, "demo", "--listen", f"127.0.0.1:{port}", "--data", f"{work}/data"],
                        stdout=demo_log, stderr=subprocess.STDOUT)
browser = None
try:
    wait_for("the demo", lambda: "running" in open(f"{work}/demo.log").read())
    browser = WebDriver(window="1400,1400")
    browser.resize(1280, 1400)
    browser.open(f"http://127.0.0.1:{port}/")
    wait_for("the live log to connect", lambda: browser.text("#stream-state") == "live")
    check(browser.text("#card-status") == "No Live Activity", "the iPhone starts with no Live Activity")
    wait_for("the iPhone app to register its push-to-start token",
             lambda: "registered push-to-start token" in browser.text("#iphone-app-log"))

    print("place an order, then six steps")
    browser.click("#place")
    wait_for("the start on the iPhone", lambda: browser.text("#card-status") == "Order placed")
    check("Order placed" in browser.text("#android-title"), "the Android phone shows the start too")
    for step in range(6):
        before = state(port)["iphone"]["activities"][-1]["timestamp"]
        browser.click("#next")
        wait_for(f"step {step + 2} on the iPhone",
                 lambda: state(port)["iphone"]["activities"][-1]["timestamp"] > before)
    wait_for("the last step on the card", lambda: browser.text("#card-status") == "Delivered")
    check(browser.count("#card-segments span.lit") == 7, "all seven segments are lit")
    check((browser.text("#card-eta"), browser.text("#card-stops")) == ("Arrived", "Enjoy your order"),
          f"delivered reads {browser.text('#card-eta')!r} · {browser.text('#card-stops')!r}, not \"0 min · You're next\"")
    log_text = browser.text("#log")
    check("iPhone update token " in log_text and "Android FCM token " in log_text,
          "the log names what each fingerprint is")
    wait_for("the last step on Android", lambda: browser.text("#android-title") == "Delivered")
    held = state(port)
    check(held["iphone"]["activities"][-1]["view"]["status"] == held["android"]["notifications"][-1]["title"],
          "both phones hold the same step")

    print("reassign the rider")
    browser.click("#reassign")
    wait_for("the new courier on the iPhone", lambda: "New courier" in browser.text("#card-courier"))
    courier = browser.text("#card-courier")
    check("reassigned" in browser.do("GET", f"/element/{browser.element('#card-courier')}/attribute/class"),
          "the iPhone shows the reassigned style")
    # Android's text is the courier line, then what remains ("· Enjoy your order"): N of M's planner.
    wait_for("the new courier on Android", lambda: browser.text("#android-text").startswith(courier + " · "))
    android_text = browser.text("#android-text")
    check(android_text.startswith(courier + " · "),
          f"both phones say \"{courier}\", Android adding what remains ({android_text!r})")

    print("a broken push")
    browser.click('[data-broken="unix-date"]')
    wait_for("the drop on the iPhone", lambda: "DT-017" in browser.text("#iphone-drops"))
    wait_for("the drop in the live log", lambda: "DT-017" in browser.text("#log"))
    check(browser.text("#card-status") == "Delivered", "the card still shows the last good state")

    print("relaunch the iPhone app")
    browser.click("#relaunch")
    wait_for("the relaunch on the page", lambda: "relaunched:" in browser.text("#iphone-app-status"))
    check(browser.text("#iphone-app-status") == "relaunched: 0 tokens re-sent, reconciled: ended 0, lost 0",
          f"the page reports the relaunch: {browser.text('#iphone-app-status')!r}")
    check("not re-sent" in browser.text("#iphone-app-log"), "the app's log shows the ledger kept the tokens")
    wait_for("the relaunch in the live log", lambda: "iPhone app: relaunched" in browser.text("#log"))
    before = state(port)["iphone"]["activities"][-1]["timestamp"]
    browser.click("#reassign")
    wait_for("an update after the relaunch", lambda: state(port)["iphone"]["activities"][-1]["timestamp"] > before)
    wait_for("the courier after the relaunch", lambda: browser.text("#card-courier") != courier)
    check(browser.text("#card-status") == "Delivered", "the activity still updates after the relaunch")

    check(browser.script("return window.innerWidth") == 1280, "the window is 1280 px wide")
    browser.screenshot(ARTIFACT)
    check(os.path.getsize(ARTIFACT) > 10_000, f"screenshot saved: {os.path.relpath(ARTIFACT, ROOT)}")

    print("the user demotes the Android Live Update; it stays a plain notification through the next update")
    browser.click("#android-demote")
    wait_for("the card to lose its promotion", lambda: not state(port)["android"]["notifications"][0]["promoted"])
    wait_for("the page to say so", lambda: "not promoted" in browser.text("#android-promoted"))
    check("demoted" in browser.text("#android-reasons"), f"the reason shown: {browser.text('#android-reasons')!r}")
    received = state(port)["android"]["received"]
    browser.click("#reassign")
    wait_for("the reassignment to reach the Android phone", lambda: state(port)["android"]["received"] > received)
    check(not state(port)["android"]["notifications"][0]["promoted"], "later updates stay demoted")

    print("the user swipes the Android Live Update away; the server keeps updating")
    browser.click("#android-dismiss")
    wait_for("the card to leave the Android phone", lambda: not state(port)["android"]["notifications"])
    browser.click("#reassign")
    wait_for("the drop on the Android phone", lambda: "DT-115" in browser.text("#android-drops"))
    check(not state(port)["android"]["notifications"], "the dismissed Live Update does not come back")

    print("Reset: the order ends, the phones and the log are cleared")
    first = state(port)["order"]["id"]
    browser.click("#reset")
    wait_for("the order to end", lambda: state(port)["order"]["running"] is False)
    wait_for("the iPhone card to go", lambda: browser.text("#card-status") == "No Live Activity")
    wait_for("the drops to go", lambda: not browser.text("#iphone-drops") and not browser.text("#android-drops"))
    wait_for("the log to clear", lambda: "DT-017" not in browser.text("#log"))
    check(browser.text("#android-title") == "No Live Update", "the Android phone shows no Live Update")
    check(browser.text("#current-order") == f"Current order {first} · Delivered · ended",
          f"the page shows the ended order: {browser.text('#current-order')!r}")
    check(browser.attribute("#next", "disabled") == "true", "Next step waits for an order")

    print("one current order: a second Place order asks first")
    browser.click("#place")
    wait_for("the new order on the iPhone", lambda: browser.text("#card-status") == "Order placed")
    order = state(port)["order"]["id"]
    check(browser.text("#current-order") == f"Current order {order} · Order placed · running",
          f"the page shows the current order: {browser.text('#current-order')!r}")
    check(browser.visible("#banner"), "the start's alert banner shows")
    wait_for("the banner to go", lambda: not browser.visible("#banner"), timeout=10)
    browser.click("#place")
    wait_for("the page to ask", lambda: browser.visible("#place-confirm"))
    check(order in browser.text("#place-confirm-text"), f"it names the running order: {browser.text('#place-confirm-text')!r}")
    browser.click("#place-keep")
    wait_for("the question to go", lambda: not browser.visible("#place-confirm"))
    check(state(port)["order"]["id"] == order, "Keep it keeps the order")
    browser.click("#place")
    wait_for("the page to ask again", lambda: browser.visible("#place-confirm"))
    browser.click("#place-replace")
    wait_for("the new order", lambda: state(port)["order"]["id"] != order and state(port)["order"]["running"])
    wait_for("the old order to leave the iPhone", lambda: len(
        [a for a in state(port)["iphone"]["activities"] if a["phase"] != "dismissed"]) == 1)
    wait_for("the new order on the Android phone",
             lambda: state(port)["android"]["notifications"][-1]["tag"] == state(port)["order"]["id"])
    check(browser.text("#android-title") == "Order placed", "the Android phone shows the new order")

    print("switches say they took effect; 120 updates while offline reach DT-114; a refused push")
    browser.click("#android-online")
    wait_for("the switch to answer", lambda: "Android: offline" in browser.text("#answer"))
    check("applied" in browser.attribute("#android-online", "class") or
          "applied" in browser.script("return document.getElementById('android-online').closest('label').className"),
          "the switch shows it was applied")
    browser.click("#android-online")
    wait_for("the switch to answer again", lambda: "Android: online" in browser.text("#answer"))
    browser.click("#offline-burst")
    wait_for("the DT-114 drop on the Android phone", lambda: "DT-114" in browser.text("#android-drops"), timeout=60)
    wait_for("the answer", lambda: "120 updates sent" in browser.text("#answer"))
    check(state(port)["android"]["online"], "the Android phone is back online")
    browser.click('[data-broken="topic"]')
    wait_for("the refused push in the log", lambda: "refused before sending" in browser.text("#log"))
    check("APNs answered nothing" not in browser.text("#log"), "no \"APNs answered nothing\"")
    check("1 pushes" not in browser.text("#iphone-received"), f"counts read well: {browser.text('#iphone-received')!r}")

    print("the card's button: \"Got it\" once the courier is almost there")
    check(not browser.visible("#card-action"), "no button before the courier is almost there")
    for _ in range(6):
        if browser.text("#card-status") == "Almost there":
            break
        before = state(port)["iphone"]["activities"][-1]["timestamp"]
        browser.click("#next")
        wait_for("the next step on the iPhone", lambda: state(port)["iphone"]["activities"][-1]["timestamp"] > before)
        wait_for("the step on the card", lambda: browser.text("#card-status") != "")
    wait_for("the button on the card", lambda: browser.visible("#card-action") and browser.text("#card-action") == "Got it")
    browser.click("#card-action")
    wait_for("the press in the app's log", lambda: "pressed 'confirm_receipt'" in browser.text("#iphone-app-log"))
    wait_for("the delivered card the press brought", lambda: browser.text("#card-status") == "Delivered")
    wait_for("no button on the ended card", lambda: not browser.visible("#card-action"))

    print("at phone width (390 px)")
    browser.resize(390, 3600)  # tall, so the screenshot reaches the Android phone and the log
    wait_for("the window to be 390 px wide", lambda: browser.script("return window.innerWidth") == 390)
    scroll, inner = browser.script(
        "return [document.documentElement.scrollWidth, window.innerWidth]")
    check(scroll <= inner, f"no horizontal scroll at 390 px (scrollWidth {scroll}, innerWidth {inner})")
    left, right = browser.script(
        "const r = document.getElementById('notification').getBoundingClientRect(); return [r.left, r.right]")
    check(left >= 0 and right <= inner, f"the Android card fits ({left:.0f}…{right:.0f} of {inner})")
    widths = browser.script(
        "return [...document.querySelectorAll('.devices > section')].map((e) => e.getBoundingClientRect().width)")
    check(all(width >= inner * 0.8 for width in widths), f"one column: each section {widths} of {inner}")
    browser.screenshot(ARTIFACT_390)
    check(os.path.getsize(ARTIFACT_390) > 10_000, f"screenshot saved: {os.path.relpath(ARTIFACT_390, ROOT)}")
except Exception as error:  # report what the page showed, then fail
    failures.append(str(error))
    print(f"  FAIL {error}")
    if browser:
        try:
            browser.screenshot(ARTIFACT)
            print(f"  (screenshot of the failure: {ARTIFACT})")
        except Exception:
            pass
    print(open(f"{work}/demo.log").read()[-3000:])
finally:
    if browser:
        browser.quit()
    demo.terminate()
    try:
        demo.wait(timeout=20)
        check(demo.returncode == 0, "the demo exits 0 on SIGTERM")
    except subprocess.TimeoutExpired:
        demo.kill()
        check(False, "the demo exits on SIGTERM")
    shutil.rmtree(work, ignore_errors=True)

if failures:
    print(f"{len(failures)} browser check(s) failed")
    sys.exit(1)
print("dashboard in Chromium: all checks passed")
