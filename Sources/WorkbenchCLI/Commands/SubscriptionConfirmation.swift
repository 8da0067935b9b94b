import Foundation
import WorkbenchNet

/// An SNS topic's HTTP subscription is confirmed by fetching the URL it sends once
/// (`SubscriptionConfirmation`); until then AWS delivers nothing to the watch.
enum SubscriptionConfirmation {
    /// Fetches `url`: nil when SNS answered 200, else what went wrong.
    static func confirm(_ url: String) async -> String? {
        guard let address = URL(string: url), address.scheme == "https" || address.scheme == "http" else {
            return "The SubscribeURL \(url) is not an http(s) URL."
        }
        switch await Visit.status(of: url) {
        case .success(200):
            Terminal.error("Confirmed the SNS subscription (\(address.host ?? url)).")
            return nil
        case .success(let status):
            return "Confirming the SNS subscription at \(url) answered HTTP \(status)."
        case .failure(let error):
            return "Cannot confirm the SNS subscription at \(url): \(error)"
        }
    }
}
