/// Kith's own certificates over ACME: the http-01 challenge route always
/// (it answers 404 unless an issuance is under way), and the renewal task
/// when `--acme-domain` names what to certify.
enum CertificatesFeature {
    static func make(_ app: KithApp) -> Feature {
        var feature = Feature("certificates")
        feature.endpoints = CertificateRoutes.endpoints(app)
        let options = app.certificates.options
        if !options.domains.isEmpty && options.renewsInBackground { feature.tasks = [app.certificates.backgroundTask] }
        return feature
    }
}
