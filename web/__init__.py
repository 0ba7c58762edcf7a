"""The Flask dashboard (application factory, blueprints, templates)."""
