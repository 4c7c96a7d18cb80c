"""Providers: one module per wire protocol, each turning a Context into an event stream."""
