#!/usr/bin/env python3
"""Sends per second from firebase-admin (Google's Admin SDK) against an FCM-compatible endpoint,
through its fastest path: send_each_async (httpx, HTTP/2), in batches of 500.

Usage: fcm_admin_rate.py SERVICE_ACCOUNT BASE_URL CA_FILE N
Prints sends_per_second=<number> as its last line.
"""
import asyncio
import os
import sys
import time

account_file, base_url, ca_file, total = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
os.environ["REQUESTS_CA_BUNDLE"] = ca_file
os.environ["SSL_CERT_FILE"] = ca_file
import firebase_admin  # noqa: E402
from firebase_admin import credentials, messaging  # noqa: E402

messaging._MessagingService.FCM_URL = base_url + "/v1/projects/{0}/messages:send"
app = firebase_admin.initialize_app(credentials.Certificate(account_file))
data = {"activityId": "act-1", "event": "update", "status": "On the way", "progress": "0.7142857142857143",
        "etaEpochMillis": "1796000720000", "stopsRemaining": "2", "courierName": "Sam", "riderReassigned": "false",
        "schemaVersion": "1", "sequence": "1", "orderId": "o1"}


def batch(size, offset):
    return [messaging.Message(token=f"bench-token-{(offset + i) % 1000}", data=data,
                              android=messaging.AndroidConfig(priority="high", ttl=60)) for i in range(size)]


async def main():
    warm = await messaging.send_each_async(batch(1, 0), app=app)
    assert warm.success_count == 1, warm.responses[0].exception
    sent = ok = 0
    started = time.perf_counter()
    while sent < total:
        size = min(500, total - sent)
        response = await messaging.send_each_async(batch(size, sent), app=app)
        ok += response.success_count
        sent += size
    elapsed = time.perf_counter() - started
    print(f"sends={total} accepted={ok} seconds={elapsed:.3f}")
    print(f"sends_per_second={int(ok / elapsed)}")

asyncio.run(main())
