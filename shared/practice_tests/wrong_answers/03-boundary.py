# mistake: raises for an unknown api instead of returning a failed stream
# expect: KeyError
options = options or StreamOptions()
if options.signal is not None and options.signal.aborted:
    return failed_stream(model, options, "Request was aborted", "aborted")
return self._providers[model.api].stream(model, context, options)
