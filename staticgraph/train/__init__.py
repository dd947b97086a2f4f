"""train: training algorithms (optimizers), global step, learning-rate schedules (being written)."""
