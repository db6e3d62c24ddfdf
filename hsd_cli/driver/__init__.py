"""The driver: serves the methods' row requests on the target (several pages' at once) and turns
their decodes into page results in input order; driver/choose.py picks a run's converter."""
