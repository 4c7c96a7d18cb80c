# mistake: lets a failed cleanup replace the judged outcome
# expect: ('infra_failed', ())
try:
    prepared = prepare(case, settings.make_folder, settings.model)
except OSError:
    return infra(case.id, target.step, "prepare", "workspace_setup")
outcome = observe_and_judge(case, target, settings, prepared)
try:
    dispose(prepared)
except OSError:
    return infra(case.id, target.step, "dispose", "cleanup_failed")
return outcome
