// The ConferRTP module.
