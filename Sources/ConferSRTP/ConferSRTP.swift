// The ConferSRTP module.
