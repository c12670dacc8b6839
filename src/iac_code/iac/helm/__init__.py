"""Helm charts: values files against `values.schema.json` and the paths the templates read."""
