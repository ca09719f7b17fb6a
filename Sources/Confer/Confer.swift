// The Confer module: jobs and pipelines built from the lower layers.
