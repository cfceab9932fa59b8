#!/usr/bin/env python3
"""Checks the Android library's Gradle module files as far as this machine can without Gradle.

The manifest and the drawables are parsed as XML and checked for what the library needs at run
time (the FCM service not exported, its MESSAGING_EVENT filter, the two notification permissions,
the cards' dismiss receiver and the notifications-switch receiver (APP_BLOCK_STATE_CHANGED) not
exported, the retry job's service bound only by the system);
the Gradle scripts are only read for the blocks and values the README promises (a real Gradle run
is what proves they build); the service the manifest names must exist among the compiled classes
and be a FirebaseMessagingService, and likewise the receivers and the job service.

    check_module.py <module dir> <compiled classes dir>
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

ANDROID = "{http://schemas.android.com/apk/res/android}"


def manifest_problems(path: str) -> list[str]:
    problems = []
    root = ET.parse(path).getroot()
    if root.tag != "manifest":
        return [f"{path}: the root element is <{root.tag}>, not <manifest>"]
    if root.get("package"):
        problems.append(f"{path}: drop package=; AGP 8 takes the namespace from build.gradle.kts")
    permissions = {element.get(ANDROID + "name") for element in root.findall("uses-permission")}
    for needed in ("android.permission.POST_NOTIFICATIONS", "android.permission.POST_PROMOTED_NOTIFICATIONS",
                   "android.permission.INTERNET", "android.permission.RECEIVE_BOOT_COMPLETED"):
        if needed not in permissions:
            problems.append(f"{path}: <uses-permission android:name=\"{needed}\"/> is missing")
    services = root.findall("application/service")
    fcm = [s for s in services if any(a.get(ANDROID + "name") == "com.google.firebase.MESSAGING_EVENT"
                                      for a in s.findall("intent-filter/action"))]
    if len(fcm) != 1:
        return problems + [f"{path}: expected one service with the com.google.firebase.MESSAGING_EVENT filter, found {len(fcm)}"]
    service = fcm[0]
    if service.get(ANDROID + "exported") != "false":
        problems.append(f"{path}: the FCM service must be android:exported=\"false\" (only Firebase starts it)")
    priority = service.find("intent-filter").get(ANDROID + "priority")
    if priority is None or not -500 < int(priority) < 0:
        problems.append(f"{path}: the FCM filter's priority is {priority}; it must be above firebase-messaging's "
                        f"own service (-500) and below an app's own (0), e.g. -1")
    receivers = root.findall("application/receiver")
    actions = sorted(a.get(ANDROID + "name") or "" for r in receivers for a in r.findall("intent-filter/action"))
    if len(receivers) != 2 or any(r.get(ANDROID + "exported") != "false" for r in receivers):
        problems.append(f"{path}: expected two <receiver>s (the cards' delete intent, the notifications switch), "
                        f"each with android:exported=\"false\"")
    if actions != ["android.app.action.APP_BLOCK_STATE_CHANGED"]:
        problems.append(f"{path}: the switch receiver must filter android.app.action.APP_BLOCK_STATE_CHANGED "
                        f"(NotificationManager.ACTION_APP_BLOCK_STATE_CHANGED), and the delete receiver nothing; found {actions}")
    jobs = [s for s in services if s.get(ANDROID + "permission") == "android.permission.BIND_JOB_SERVICE"]
    if len(jobs) != 1:
        problems.append(f"{path}: expected one job service with android:permission=\"android.permission.BIND_JOB_SERVICE\"")
    return problems


def component_classes(path: str) -> dict[str, str]:
    """The FCM service, the receiver and the job service, each with the class it must extend."""
    root = ET.parse(path).getroot()
    named = {}
    for service in root.findall("application/service"):
        if service.get(ANDROID + "permission") == "android.permission.BIND_JOB_SERVICE":
            named[service.get(ANDROID + "name")] = "android.app.job.JobService"
        else:
            named[service.get(ANDROID + "name")] = "com.google.firebase.messaging.FirebaseMessagingService"
    for receiver in root.findall("application/receiver"):
        named[receiver.get(ANDROID + "name")] = "android.content.BroadcastReceiver"
    return named


# What DeliveryNotifier must call for a card's tap, swipe and timeout: CardIntents decides the values
# (tested on the JVM), and these calls are where they reach the platform.
NOTIFIER_CALLS = (
    "androidx/core/app/NotificationCompat$Builder.setContentIntent",
    "androidx/core/app/NotificationCompat$Builder.setDeleteIntent",
    "androidx/core/app/NotificationCompat$Builder.setTimeoutAfter",
    "android/app/PendingIntent.getActivity",
    "android/app/PendingIntent.getBroadcast",
    "android/content/pm/PackageManager.getLaunchIntentForPackage",
)


def notifier_problems(classes: str) -> list[str]:
    shown = subprocess.run(["javap", "-c", "-p", "-cp", classes, "com.droptrack.android.DeliveryNotifier"],
                           capture_output=True, text=True)
    if shown.returncode != 0:
        return [f"javap could not read com.droptrack.android.DeliveryNotifier: {shown.stderr.strip()}"]
    return [f"DeliveryNotifier never calls {call.split('/')[-1]}: the card would lose its tap, swipe or timeout"
            for call in NOTIFIER_CALLS if f"Method {call}:" not in shown.stdout]


def gradle_problems(module: str) -> list[str]:
    problems = []
    build = open(os.path.join(module, "build.gradle.kts"), encoding="utf-8").read()
    settings = open(os.path.join(module, "settings.gradle.kts"), encoding="utf-8").read()
    expectations = {
        "plugins { id(\"com.android.library\") }": r"plugins\s*\{[^}]*id\(\"com\.android\.library\"\)",
        "plugins { id(\"org.jetbrains.kotlin.android\") }": r"plugins\s*\{[^}]*id\(\"org\.jetbrains\.kotlin\.android\"\)",
        "android { namespace = \"com.droptrack.android\" }": r"android\s*\{[\s\S]*namespace\s*=\s*\"com\.droptrack\.android\"",
        "compileSdk = 36": r"\bcompileSdk\s*=\s*36\b",
        "minSdk = 24": r"\bminSdk\s*=\s*24\b",
        "consumerProguardFiles(\"consumer-rules.pro\")": r"consumerProguardFiles\(\"consumer-rules\.pro\"\)",
        "androidx.core:core:1.17.x": r"implementation\(\"androidx\.core:core(-ktx)?:1\.17\.\d+\"\)",
        "firebase-messaging 25.0.x": r"implementation\(\"com\.google\.firebase:firebase-messaging:25\.0\.\d+\"\)",
    }
    for what, pattern in expectations.items():
        if not re.search(pattern, build):
            problems.append(f"build.gradle.kts: expected {what}")
    if re.search(r"plugins\s*\{[^}]*version", build):
        problems.append("build.gradle.kts: plugin versions belong in settings.gradle.kts, so an app that includes "
                        "the module uses its own AGP and Kotlin")
    for plugin in ("com.android.library", "org.jetbrains.kotlin.android"):
        if not re.search(r"id\(\"" + re.escape(plugin) + r"\"\)\s*version\s*\"[\d.]+\"", settings):
            problems.append(f"settings.gradle.kts: pluginManagement names no version for {plugin}")
    if build.count("{") != build.count("}") or settings.count("{") != settings.count("}"):
        problems.append("a Gradle script's braces do not balance")
    if not os.path.isfile(os.path.join(module, "consumer-rules.pro")):
        problems.append("consumer-rules.pro is missing")
    return problems


def main() -> int:
    module, classes = sys.argv[1], sys.argv[2]
    manifest = os.path.join(module, "src/main/AndroidManifest.xml")
    problems = manifest_problems(manifest) + gradle_problems(module)
    for directory, _, files in os.walk(os.path.join(module, "src/main/res")):
        for file in files:
            if file.endswith(".xml"):
                try:
                    ET.parse(os.path.join(directory, file))
                except ET.ParseError as error:
                    problems.append(f"{file}: {error}")
    if not problems:
        for name, parent in component_classes(manifest).items():
            chain, current = [], name
            while current and current != "java.lang.Object" and len(chain) < 10:
                chain.append(current)
                shown = subprocess.run(["javap", "-cp", classes, current], capture_output=True, text=True)
                if shown.returncode != 0:
                    break
                match = re.search(r"class \S+ extends (\S+)", shown.stdout)
                current = match.group(1) if match else ""
            if parent not in chain:
                problems.append(f"the manifest's {name} is not a compiled {parent} ({' < '.join(chain)})")
    problems += notifier_problems(classes)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"check_module: manifest, resources, build.gradle.kts and settings.gradle.kts "
          f"{'have ' + str(len(problems)) + ' problems' if problems else 'as expected'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
