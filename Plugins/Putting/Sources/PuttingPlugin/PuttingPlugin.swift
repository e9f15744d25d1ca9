// PuttingPlugin: the thin adapter from PuttingCore to PluginKit. Filled in by the putting plugin issue.
