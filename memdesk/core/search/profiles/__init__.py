"""Ranking profiles: memdesk's own and one per verified OpenClaw release."""
