require_relative 'packaging/cocoapods/droptrack_pod'

Pod::Spec.new do |s|
  DropTrackPod.configure(s, target: 'DropTrackContract', ios: '15.1',
                            summary: "The delivery Live Activity's attributes and the widget's view logic, shared " \
                                     'by the app, the widget and the server.')
  # ActivityKit exists from iOS 16.1: weak, so an app that runs on 15.1 still launches there.
  s.weak_frameworks = 'ActivityKit'
end
