# mistake: never clears the prompts already recorded, so every turn records the prompt again
# expect: 'user' != 'assistant'
for turn in range(config.max_turns + 1):
    if turn == config.max_turns:
        error = f"max_turns_exceeded: the run reached its limit of {config.max_turns} turns"
        break
    emit(TurnStart())
    for message in pending:
        run.record(message)
    reply = await run.ask_model()
    results = await tools.run(reply, run.record)
    emit(TurnEnd(message=reply, tool_results=tuple(results)))
    if reply.stop_reason in ENDS_RUN or signal.aborted or not results:
        break
