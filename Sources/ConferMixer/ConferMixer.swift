// ConferMixer: the host's video compositor and per-listener audio mixer.
