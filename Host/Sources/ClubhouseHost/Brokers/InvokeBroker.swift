// Invoke broker: a plugin calling another plugin's command. One implementation (the router, through
// `SiteRuntime.invokeFromPlugin`: grant, command and arguments checked as for any caller; the
// call is nested in the caller's, so cancellation and deadlines reach the callee), reached two
// ways: the C table an in-process plugin gets, and the wire face that answers a runner's
// `invoke` service call.

import CClubhouse
import ClubhouseABI
import ClubhouseWire

enum InvokeBroker {
    /// The C face.
    static func makeServiceTable() -> clubhouse_invoke_service {
        clubhouse_invoke_service(
            struct_size: UInt32(MemoryLayout<clubhouse_invoke_service>.size),
            invoke: { host, call, alias, command, request, length, reply in
                guard let instance = PluginInstance.from(host), let context = CallContext.from(call), let alias, let command
                else { return Int32(CLUBHOUSE_INVALID_ARGUMENT) }
                let bytes = request.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
                let outcome = instance.runtime.invokeFromPlugin(caller: instance, call: context, alias: String(cString: alias),
                                                                command: String(cString: command), request: bytes)
                reply?.write(bytes: outcome.reply)
                return outcome.status
            })
    }

    /// The wire face: `invoke` (InvokeRequest) → status, the callee's reply. The runner's call id
    /// is not trusted: the callee nests in the call the runner is serving.
    static func serve(_ request: InvokeRequest, instance: PluginInstance, call: CallContext) -> (Int32, [UInt8]) {
        let outcome = instance.runtime.invokeFromPlugin(caller: instance, call: call, alias: request.plugin, command: request.command,
                                                        request: request.request)
        return (outcome.status, InvokeRequest.encodeReply(outcome.reply))
    }
}
