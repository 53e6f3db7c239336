export * from './gen/tollgate/common/v1/common';
