// TennisPlugin: the thin adapter from TennisCore to PluginKit. Filled in by the tennis plugin issue.
