/**
 * `@agentry/core/testing`: fakes and conformance suites, used the way users will use them.
 *
 * @module
 */

// >>> fake provider block
// <<< fake provider block
// >>> session contract block
// <<< session contract block
// >>> provider testing block
// <<< provider testing block
