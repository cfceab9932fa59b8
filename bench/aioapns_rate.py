#!/usr/bin/env python3
"""Pushes per second from aioapns (the fastest Python APNs client) against an APNs-compatible server.

Usage: aioapns_rate.py HOST PORT CA_FILE KEY_FILE KEY_ID TEAM_ID BUNDLE_ID N CONCURRENCY
Prints pushes_per_second=<number> as its last line, like `droptrack-dev bench apns`.
"""
import asyncio
import os
import ssl
import sys
import time
import uuid

from aioapns import APNs, NotificationRequest, PushType
from aioapns import connection

host, port, ca_file, key_file, key_id, team_id, bundle_id = sys.argv[1:8]
total, concurrency = int(sys.argv[8]), int(sys.argv[9])
connection.APNsDevelopmentClientProtocol.APNS_SERVER = host
connection.APNsDevelopmentClientProtocol.APNS_PORT = int(port)


async def main():
    context = ssl.create_default_context(cafile=ca_file)
    client = APNs(key=open(key_file).read(), key_id=key_id, team_id=team_id,
                  topic=bundle_id + ".push-type.liveactivity", use_sandbox=True, ssl_context=context,
                  max_connections=1)
    tokens = [os.urandom(32).hex() for _ in range(1000)]
    now = int(time.time())
    message = {"aps": {"event": "update", "timestamp": now,
                       "content-state": {"status": "On the way", "progress": 0.71, "stopsRemaining": 2}}}
    issued = 0
    answered = 0

    async def worker():
        nonlocal issued, answered
        while issued < total:
            index = issued
            issued += 1
            request = NotificationRequest(device_token=tokens[index % len(tokens)], message=message,
                                          notification_id=str(uuid.uuid4()), push_type=PushType.LIVEACTIVITY,
                                          priority=5)
            await client.send_notification(request)
            answered += 1

    await client.send_notification(NotificationRequest(device_token=tokens[0], message=message,
                                                       push_type=PushType.LIVEACTIVITY, priority=5))
    started = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    elapsed = time.perf_counter() - started
    print(f"pushes={total} answered={answered} seconds={elapsed:.3f}")
    print(f"pushes_per_second={int(answered / elapsed)}")

asyncio.run(main())
