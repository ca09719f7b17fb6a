// ConferSimulation: the pipelines run in virtual time over ConferNet's simulated network,
// deterministic for a seed. Simulation/ is one sender and one receiver (`confer simulate`);
// Meeting/ is a room of members around a compositing host (`confer meeting`).
