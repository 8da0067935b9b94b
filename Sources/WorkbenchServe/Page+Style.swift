extension Page {
    /// The page's CSS: cards, states, the tuning panel.
    static let style = #"""
    :root { --bg: #16181d; --card: #20232b; --text: #e6e6e6; --dim: #9aa0ab; --ok: #5cb85c; --bad: #e5534b; --run: #d4a72c; --same: #6f9fd8; }
    * { box-sizing: border-box; }
    body { margin: 0; font: 14px/1.4 system-ui, sans-serif; background: var(--bg); color: var(--text); }
    header { position: sticky; top: 0; z-index: 2; background: #101216ee; padding: 10px 16px; border-bottom: 1px solid #2c3038; }
    header h1 { font-size: 16px; margin: 0 8px 0 0; display: inline; }
    #summary, #queues { color: var(--dim); margin-left: 12px; }
    #errors { color: var(--bad); white-space: pre-wrap; font-family: ui-monospace, monospace; margin: 6px 0 0; }
    details { margin-top: 4px; color: var(--dim); }
    details pre { margin: 4px 0; font-size: 12px; }
    main { display: grid; grid-template-columns: repeat(auto-fill, minmax(340px, 1fr)); gap: 12px; padding: 16px; }
    .item { background: var(--card); border-radius: 8px; padding: 8px; min-height: 230px; }
    .pair { display: grid; grid-template-columns: 1fr 1fr; gap: 6px; height: 160px; }
    .pair div { background: #111; border-radius: 4px; display: flex; align-items: center; justify-content: center; overflow: hidden; }
    .pair img { max-width: 100%; max-height: 160px; }
    .name { font-weight: 600; margin-top: 6px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .item .files { display: block; width: 100%; margin-top: 4px; font-size: 12px; }
    .state { display: inline-block; padding: 1px 6px; border-radius: 10px; font-size: 12px; background: #333; }
    .state.done { background: var(--ok); color: #000; }
    .state.upToDate { background: var(--same); color: #000; }
    .state.failed { background: var(--bad); color: #fff; }
    \#(ItemState.workingSelector) { background: var(--run); color: #000; }
    .meta { color: var(--dim); font-size: 12px; }
    .error { color: var(--bad); font-size: 12px; white-space: pre-wrap; }
    body.tuning main { margin-right: 320px; }
    #panel { position: fixed; top: 0; right: 0; bottom: 0; width: 320px; overflow-y: auto; background: #101216; border-left: 1px solid #2c3038; padding: 10px 12px; z-index: 3; display: none; }
    body.tuning #panel { display: block; }
    #panel h2 { font-size: 14px; margin: 14px 0 4px; }
    #panel h2 small { color: var(--dim); font-weight: normal; }
    .control { margin: 6px 0; }
    .control label { display: block; font-size: 12px; color: var(--dim); }
    .control.changed label { color: var(--run); }
    .control input[type=range] { width: 65%; vertical-align: middle; }
    .control input[type=range].unset { opacity: 0.35; }
    .control input[type=number] { width: 30%; }
    .control input[type=text], .control select { width: 100%; }
    .control .grid { display: grid; gap: 2px; }
    .control .grid input { width: 100%; }
    .control .problem { color: var(--bad); font-size: 12px; white-space: pre-wrap; }
    #draft { margin: 6px 0; display: flex; gap: 6px; flex-wrap: wrap; align-items: center; }
    #draftNote { color: var(--run); font-size: 12px; }
    .out img.draft { outline: 2px solid var(--run); }
    .pair { position: relative; }
    .item.split .pair { grid-template-columns: 1fr; }
    .item.split .pair > div.in, .item.split .pair > div.out { position: absolute; inset: 0; background: #111; }
    .item.split .pair > div.out { background: transparent; clip-path: inset(0 0 0 var(--cut, 50%)); }
    .item .cut { display: none; }
    .item.split .cut { display: block; position: absolute; left: 0; right: 0; bottom: 2px; width: 100%; margin: 0; z-index: 1; }
    .mode { float: right; background: none; border: 1px solid #444; color: var(--dim); border-radius: 4px; cursor: pointer; }
    """#
}
