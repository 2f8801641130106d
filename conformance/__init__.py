"""Runs the public array-api-tests suite against ``nabla.array_api`` (``python -m conformance``)."""
