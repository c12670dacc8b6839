"""Kubernetes manifests: bundled JSON schemas (kubernetes-validate) and API-server rules."""
