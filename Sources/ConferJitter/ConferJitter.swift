// ConferJitter: video and audio jitter buffers with loss recovery (NACK, RTX, FEC, PLC, keyframe requests).
